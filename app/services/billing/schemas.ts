import { z } from 'zod'

// Shared by the billing forms (conform in the browser) and their actions (parseWithZod).

const planId = z.coerce
	.number({ error: 'Choose one of the plans shown.' })
	.int('Choose one of the plans shown.')
	.min(1, 'Choose one of the plans shown.')
	.max(1_000_000, 'Choose one of the plans shown.')

export const SubscribeSchema = z.object({ intent: z.literal('subscribe'), planId })
export const CancelSchema = z.object({ intent: z.literal('cancel') })
export const ResumeSchema = z.object({ intent: z.literal('resume') })
/** The confirm step of a plan switch, after its proration was shown. */
export const SwitchPlanSchema = z.object({ intent: z.literal('switch'), planId })

export const SubscriptionActionSchema = z.discriminatedUnion('intent', [
	SubscribeSchema,
	CancelSchema,
	ResumeSchema,
	SwitchPlanSchema,
])

export const BuyCreditsSchema = z.object({
	intent: z.literal('buy'),
	credits: z.coerce
		.number({ error: 'Choose one of the credit packs shown.' })
		.int('Choose one of the credit packs shown.')
		.min(1, 'Choose one of the credit packs shown.')
		.max(10_000_000, 'Choose one of the credit packs shown.'),
})

export const TestPaymentSchema = z.object({ intent: z.enum(['complete', 'decline']) })
