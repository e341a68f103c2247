import { z } from 'zod'
import { PAY_WITH, VERIFY_ONLY, VerifySchema } from '../../verification/schemas.ts'
import {
	cancelVerification,
	estimateVerification,
	findVerificationRun,
	startVerification,
} from '../../verification/verify-runs.server.ts'
import { runResource } from '../run-resource.ts'

// Verification runs through the verify page's service: its estimate as the dry run, the start
// (one run of a list at a time, its credits held), the status and cancel.

const VerificationRun = z
	.object({
		id: z.uuid(),
		object: z.literal('verification_run'),
		list_id: z.uuid(),
		status: z
			.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)])
			.meta({ description: '0 pending, 1 running, 2 finished, 3 failed or cancelled' }),
		error: z.string().nullable(),
		notes: z.array(z.string()).meta({
			description:
				'What the run could not do as asked, in words (the bulk service was down so emails were checked one by one, a file failed, the provider timed out).',
		}),
		provider: z.string(),
		total: z.number().int(),
		done: z.number().int(),
		cached: z.number().int().meta({ description: 'Answers reused from the last days (free).' }),
		only: z.enum(VERIFY_ONLY),
		filter: z.array(z.string()),
		cost: z.object({
			credits: z.number().int().meta({ description: 'Credits held.' }),
			charged: z.number().int(),
			pay_with: z.string(),
		}),
		created_at: z.iso.datetime(),
		finished_at: z.iso.datetime().nullable(),
	})
	.meta({ id: 'VerificationRun' })

const Estimate = z
	.object({
		object: z.literal('verification_run_estimate'),
		dry_run: z.literal(true),
		rows: z.number().int(),
		cached: z.number().int(),
		to_check: z.number().int().meta({ description: 'Emails the provider would be asked.' }),
		provider: z.string(),
		cost: z.object({ credits: z.number().int(), pay_with: z.enum(PAY_WITH) }),
		balance: z.number().int(),
		filter: z.array(z.string()),
	})
	.meta({ id: 'VerificationRunEstimate' })

// the verify page's own fields, on a list
const StartBody = VerifySchema.omit({ intent: true }).extend({
	list_id: z.uuid({ error: 'Choose a list' }).meta({ description: 'A lead list.' }),
	dry_run: z.boolean().optional().meta({
		description: 'Answer the estimate (200) without starting it or holding credits.',
	}),
})

function runItem(run: Awaited<ReturnType<typeof findVerificationRun>>) {
	return {
		id: run.id,
		object: 'verification_run' as const,
		list_id: run.listId,
		status: run.status as 0 | 1 | 2 | 3,
		error: run.error,
		notes: run.notes,
		provider: run.provider,
		total: run.total,
		done: run.done,
		cached: run.cached,
		only: run.only,
		filter: run.filter,
		cost: { credits: run.creditsReserved, charged: run.charged, pay_with: run.keyKind },
		created_at: run.createdAt,
		finished_at: run.finishedAt,
	}
}

/** The estimate as a dry run answers it. */
function estimateItem(estimate: Awaited<ReturnType<typeof estimateVerification>>) {
	return {
		object: 'verification_run_estimate',
		dry_run: true,
		rows: estimate.rows,
		cached: estimate.cached,
		to_check: estimate.toCheck,
		provider: estimate.provider,
		cost: { credits: estimate.credits, pay_with: estimate.payWith },
		balance: estimate.balance,
		filter: estimate.filter,
	}
}

const startInput = (body: z.output<typeof StartBody>) => ({
	listId: body.list_id,
	payWith: body.payWith,
	only: body.only,
	filter: { q: body.q },
})

export const verificationRunOperations = runResource({
	path: '/verification-runs',
	noun: 'VerificationRun',
	tag: 'Verification',
	family: 'verifications',
	screen: 'verify-list',
	item: VerificationRun,
	find: async (account, id) => runItem(await findVerificationRun(account, id)),
	start: {
		summary: 'Verify the emails of a list',
		description:
			"Checks the list's emails (`only`: the ones not verified yet, those too whose answer was unknown, or all; `q` narrows them) as the verify page does. One run of a list at a time. `dry_run: true` answers 200 with the estimate.",
		body: StartBody,
		run: async (account, body) => (await startVerification(account, startInput(body))).runId,
		estimate: {
			schema: Estimate,
			of: async (account, body) =>
				estimateItem(await estimateVerification(account, startInput(body))),
		},
	},
	get: {
		summary: 'Get a verification run',
		description: "Each lead's answer is its `verification_status` in the list's leads.",
	},
	cancel: {
		summary: 'Cancel a verification run',
		description: 'Its work stops; what was not checked is refunded. An ended run is a 400.',
		async run(account, id) {
			const run = await findVerificationRun(account, id)
			await cancelVerification(account, run.listId, run.id)
		},
	},
})
