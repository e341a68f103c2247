import { z } from 'zod'
import { NOTIFICATION_KINDS } from './kinds.ts'

export const MarkReadSchema = z.object({
	intent: z.literal('read'),
	id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER),
})

export const MarkAllReadSchema = z.object({ intent: z.literal('read-all') })

export const NotificationActionSchema = z.discriminatedUnion('intent', [
	MarkReadSchema,
	MarkAllReadSchema,
])

/** Settings' mail section: one checkbox per kind, checked = mailed. */
export const NotificationMailSchema = z.object({
	intent: z.literal('notification-mail'),
	...(Object.fromEntries(NOTIFICATION_KINDS.map((kind) => [kind, z.boolean().default(false)])) as {
		[K in (typeof NOTIFICATION_KINDS)[number]]: z.ZodDefault<z.ZodBoolean>
	}),
})
