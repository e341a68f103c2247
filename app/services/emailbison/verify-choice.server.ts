import { sql, type Kysely } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { chainVerifierOf } from '../verification/check-email.server.ts'
import { VerifyState } from '../verification/run-verification.server.ts'
import { startVerification } from '../verification/verify-runs.server.ts'

// What an upload to EmailBison leaves out by verification status (issue 35 point 6):
// invalid, disposable and risky always; catch-all and unknown unless the person keeps them;
// leads never verified are uploaded, left out, or verified first (a verification run of the
// list, which the upload's job waits for). The leads are left out once, when the job starts
// (after the verification), and the upload keeps how many per status for its report.

export const ALWAYS_LEFT_OUT = ['invalid', 'disposable', 'risky'] as const
export type UnverifiedChoice = 'upload' | 'leave-out' | 'verify-first'
export type VerifyChoiceInput = {
	leaveOut?: { catchAll: boolean; unknown: boolean }
	unverified?: UnverifiedChoice
}
type VerifyChoice = { leave: string[]; unverified: UnverifiedChoice }

/** The custom variable uploaded leads carry their status in. */
export const STATUS_VARIABLE = 'email_verification'

/** The choice as stored: by default catch-all and unknown are left out, unverified uploaded. */
export function verifyChoiceOf(input: VerifyChoiceInput): VerifyChoice {
	const leave = input.leaveOut ?? { catchAll: true, unknown: true }
	return {
		leave: [
			...ALWAYS_LEFT_OUT,
			...(leave.catchAll ? ['catch_all'] : []),
			...(leave.unknown ? ['unknown'] : []),
		],
		unverified: input.unverified ?? 'upload',
	}
}

/**
 * Whether the choice leaves out a lead of this status (`unverified`: never verified), as
 * `applyVerifyChoice` does when the job starts; a plan (the API's dry run) counts with it.
 */
export function leavesOut(choice: VerifyChoice, status: string) {
	return status === 'unverified' ? choice.unverified !== 'upload' : choice.leave.includes(status)
}

/**
 * "Verify first": a verification run of the list's unverified leads, started in the upload's
 * transaction (with the account's own key, else credits); a run of the list already going is
 * waited for instead. Null when no lead needs it.
 */
export async function startVerifyFirst(
	context: AccountContext | null,
	listId: string,
	trx: Kysely<DB>,
) {
	const running = await trx
		.selectFrom('verification_runs')
		.select('id')
		.where('list_id', '=', listId)
		.where('status', 'in', [VerifyState.pending, VerifyState.running])
		.executeTakeFirst()
	if (running) return running.id
	const unverified = await trx
		.selectFrom('leads')
		.select('id')
		.where('list_id', '=', listId)
		.where('verify_status', 'is', null)
		.where(sql<boolean>`coalesce(trim(email), '') <> ''`)
		.limit(1)
		.executeTakeFirst()
	if (!unverified) return null
	const payWith = chainVerifierOf(context?.apiKeyProviders ?? []) ?? 'credits'
	// a refusal (no credits, no key) is the "verify first" choice's error
	const { runId } = await startVerification(
		context,
		{ listId, payWith, only: 'unverified', payWithField: 'unverified' },
		trx,
	)
	return runId
}

/** The upload's job waits in the queue while its verification runs (no attempt spent). */
class VerificationRunning extends Error {
	readonly kind = 'rate-limited'
	readonly resumeAt: Date
	constructor(seconds: number) {
		super('Waiting for the verification to end before uploading.')
		this.resumeAt = new Date(Date.now() + seconds * 1000)
	}
}

/**
 * Leaves out the upload's leads its choice says (once: `left_out` says it was done), after
 * its verification ended. Throws VerificationRunning while that runs.
 */
export async function applyVerifyChoice(uploadId: string, windowPauses = 0) {
	const upload = await db
		.selectFrom('emailbison_upload as u')
		.leftJoin('verification_runs as r', 'r.id', 'u.verify_run_id')
		.select(['u.verify_choice', 'u.left_out', 'r.status as run_status'])
		.where('u.id', '=', uploadId)
		.executeTakeFirst()
	if (!upload?.verify_choice || upload.left_out) return
	if (upload.run_status === VerifyState.pending || upload.run_status === VerifyState.running)
		throw new VerificationRunning(Math.min(30, 1 + windowPauses))
	const choice = upload.verify_choice as VerifyChoice
	await db.transaction().execute(async (trx) => {
		const live = await trx
			.selectFrom('emailbison_upload')
			.select('left_out')
			.where('id', '=', uploadId)
			.forUpdate()
			.executeTakeFirstOrThrow()
		if (live.left_out) return
		// nothing of these is sent yet: the job leaves them out before its first batch
		const { rows } = await sql<{ status: string; n: number }>`
			with gone as (
				delete from emailbison_upload_leads u using leads l
				where u.upload_id = ${uploadId} and l.id = u.lead_id and u.eb_lead_id is null
					and (l.verify_status = any(${choice.leave}::text[])
						or (l.verify_status is null and ${choice.unverified !== 'upload'}))
				returning coalesce(l.verify_status, 'unverified') as status
			)
			select status, count(*)::int as n from gone group by status`.execute(trx)
		const leftOut = Object.fromEntries(rows.map((r) => [r.status, r.n]))
		const n = rows.reduce((sum, r) => sum + r.n, 0)
		await trx
			.updateTable('emailbison_upload')
			.set({ left_out: JSON.stringify(leftOut), total: sql`total - ${n}` })
			.where('id', '=', uploadId)
			.execute()
	})
}
