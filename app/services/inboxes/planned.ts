import { z } from 'zod'

/** An inbox the inbox-order job planned for an order: admins create it, the owner sees it. */
const PlannedInboxSchema = z.object({
	domainId: z.string(),
	domain: z.string(),
	address: z.string(),
	firstName: z.string(),
	lastName: z.string(),
})
export type PlannedInbox = z.infer<typeof PlannedInboxSchema>

/** The planned inboxes an order row holds (none before the job planned them). */
export function plannedInboxes(value: unknown): PlannedInbox[] {
	const parsed = z.array(PlannedInboxSchema).safeParse(value)
	return parsed.success ? parsed.data : []
}
