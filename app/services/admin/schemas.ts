import { z } from 'zod'

// Shared by the admin forms (conform) and their actions (parseWithZod).

const wholeNumber = (what: string, min: number, max: number) =>
	z
		.number({ error: `Enter ${what}` })
		.int(`${what[0]!.toUpperCase()}${what.slice(1)} is a whole number`)
		.min(min, `At least ${min}`)
		.max(max, `At most ${max.toLocaleString('en')}`)

export const UserSearchSchema = z.object({ q: z.string().trim().max(200).optional() })

export const CreditsActionSchema = z.object({
	intent: z.literal('credits'),
	direction: z.enum(['grant', 'deduct'], { error: 'Grant or deduct' }),
	amount: wholeNumber('an amount', 1, 10_000_000),
	note: z
		.string({ error: 'Give a reason' })
		.trim()
		.min(3, 'Give a reason')
		.max(200, 'Use at most 200 characters'),
})

export const LtdActionSchema = z.object({
	intent: z.literal('ltd'),
	isLtd: z.enum(['true', 'false']).transform((v) => v === 'true'),
})

export const PLATFORM_ROLE_CHOICES = ['none', 'editor', 'admin'] as const

export const RoleActionSchema = z.object({
	intent: z.literal('role'),
	role: z.enum(PLATFORM_ROLE_CHOICES, { error: 'Choose a role' }),
})

export const ExtendActionSchema = z.object({
	intent: z.literal('extend'),
	plan: wholeNumber('a plan', 1, 4),
	days: wholeNumber('a number of days', 1, 3650),
})

export const CancelSubscriptionSchema = z.object({ intent: z.literal('cancel-subscription') })
export const BanSchema = z.object({ intent: z.literal('ban') })
export const UnbanSchema = z.object({ intent: z.literal('unban') })
export const RemoveTwoFactorSchema = z.object({ intent: z.literal('remove-two-factor') })

export const UserActionSchema = z.discriminatedUnion('intent', [
	CreditsActionSchema,
	LtdActionSchema,
	RoleActionSchema,
	ExtendActionSchema,
	CancelSubscriptionSchema,
	BanSchema,
	UnbanSchema,
	RemoveTwoFactorSchema,
])

export const PlanUpdateSchema = z.object({
	intent: z.literal('plan'),
	planId: wholeNumber('a plan', 1, 4),
	priceCents: wholeNumber('a price in cents', 0, 100_000_000),
	monthlyCredits: wholeNumber('monthly credits', 0, 100_000_000),
})

export const TemplateSchema = z.object({
	intent: z.enum(['create-template', 'update-template']),
	templateId: z.string().max(100).optional(),
	name: z.string({ error: 'Enter a name' }).trim().min(1, 'Enter a name').max(120),
	url: z
		.string({ error: 'Enter an Apollo URL' })
		.trim()
		.max(4000)
		.refine(
			(u) => u.startsWith('https://app.apollo.io/#/'),
			'A template is an Apollo search address (https://app.apollo.io/#/…)',
		),
})

export const DeleteTemplateSchema = z.object({
	intent: z.literal('delete-template'),
	templateId: z.string().max(100),
})

export const TemplateActionSchema = z.discriminatedUnion('intent', [
	TemplateSchema.extend({ intent: z.literal('create-template') }),
	TemplateSchema.extend({ intent: z.literal('update-template') }),
	DeleteTemplateSchema,
])

export const JobActionSchema = z.object({
	intent: z.enum(['retry', 'cancel']),
	queue: z.string().max(100),
	jobId: z.string().max(100),
})

export const AuditFilterSchema = z.object({
	action: z.string().trim().max(100).optional(),
	actor: z.string().trim().max(200).optional(),
	target: z.string().trim().max(200).optional(),
})

export const RunChecksSchema = z.object({ intent: z.literal('run-checks') })

export const OrderActionSchema = z.discriminatedUnion('intent', [
	z.object({ intent: z.literal('start-order'), orderId: z.string().max(100) }),
	z.object({
		intent: z.literal('fulfil-order'),
		orderId: z.string().max(100),
		csv: z
			.string({ error: 'Paste the CSV of credentials' })
			.min(1, 'Paste the CSV of credentials')
			.max(5_000_000),
	}),
	z.object({
		intent: z.literal('fail-order'),
		orderId: z.string().max(100),
		reason: z.string({ error: 'Say why the order failed' }).trim().min(1).max(500),
	}),
])

export const PackUpdateSchema = z.object({
	intent: z.literal('pack'),
	credits: wholeNumber('a pack', 1, 100_000_000),
	priceCents: wholeNumber('a price in cents', 0, 100_000_000),
})

export const PricingActionSchema = z.discriminatedUnion('intent', [
	PlanUpdateSchema,
	PackUpdateSchema,
])
