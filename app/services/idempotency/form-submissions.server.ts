import { createHash, randomUUID } from 'node:crypto'
import type { Kysely, Transaction } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { isUuid } from '../../utils/http-errors.server.ts'
import { inTransaction } from '../../utils/transaction.server.ts'

/** The hidden field every form that spends credits or money or starts a job carries. */
export const IDEMPOTENCY_FIELD = 'idempotencyKey'

/** A fresh key for a form, made when the page renders (loader). */
export function newFormKey() {
	return randomUUID()
}

/**
 * What the form asked for, without its key: a page renders one key for all its forms, so
 * going back and choosing another pack is a new intent, and sending the same one is not.
 */
function fingerprintOf(form: string, formData: FormData) {
	const entries: string[] = []
	for (const [name, value] of formData) {
		if (name === IDEMPOTENCY_FIELD) continue
		// an empty file input (nothing chosen) says nothing; a retrying client may leave it out
		if (typeof value !== 'string' && value.size === 0) continue
		// browsers send a textarea's line breaks as CRLF, other clients as they are
		const text =
			typeof value === 'string' ? value.replace(/\r\n?/g, '\n') : `${value.name}:${value.size}`
		entries.push(`${name}\0${text}`)
	}
	// in any order: a browser and a retrying client may list the fields differently
	return createHash('sha256')
		.update([form, ...entries.sort()].join('\0\0'))
		.digest('base64url')
}

export type FormIntent = {
	/** the key the form carried; null when it carried none (the work then runs unguarded) */
	key: string | null
	/** key and fingerprint together: for an outside service's own idempotency key */
	intentKey: string
}

/**
 * Does a form's side effects once per intent. The submission is claimed (account, key, what
 * it asked for) in the same transaction as `work`, which gets that transaction: a repeat sent
 * while the first runs waits on the claim, then answers with the first one's result; a first
 * that fails (a FormError, a crash) leaves no claim, so fixing the form and sending it again
 * works. The result must be JSON (where to go and what to say).
 */
export async function oncePerSubmission<T>(
	input: { accountId: string; form: string; formData: FormData },
	work: (trx: Transaction<DB>, intent: FormIntent) => Promise<T>,
	executor: Kysely<DB> = defaultDb,
): Promise<T> {
	const raw = input.formData.get(IDEMPOTENCY_FIELD)
	const key = isUuid(raw) ? raw.toLowerCase() : null
	const fingerprint = fingerprintOf(input.form, input.formData)
	const intent: FormIntent = {
		key,
		intentKey: key ? `${input.form}-${key}-${fingerprint.slice(0, 16)}` : randomUUID(),
	}
	if (!key) return inTransaction(executor, (trx) => work(trx, intent))
	return inTransaction(executor, async (trx) => {
		const claimed = await trx
			.insertInto('form_submissions')
			.values({ account_id: input.accountId, key, fingerprint, form: input.form })
			.onConflict((oc) => oc.columns(['account_id', 'key', 'fingerprint']).doNothing())
			.returning('key')
			.executeTakeFirst()
		if (!claimed) {
			// the first one has committed (the insert waited for it): its answer
			const first = await trx
				.selectFrom('form_submissions')
				.select('result')
				.where('account_id', '=', input.accountId)
				.where('key', '=', key)
				.where('fingerprint', '=', fingerprint)
				.executeTakeFirstOrThrow()
			return first.result as T
		}
		const result = await work(trx, intent)
		await trx
			.updateTable('form_submissions')
			.set({ result: JSON.stringify(result ?? null) })
			.where('account_id', '=', input.accountId)
			.where('key', '=', key)
			.where('fingerprint', '=', fingerprint)
			.execute()
		return result
	})
}

/**
 * How long a form's answer is kept for a repeat: far longer than any retry, double click or
 * page left open over a weekend; a copy sent later does the work again.
 */
export const FORM_SUBMISSION_DAYS = 30

/** Forgets answers older than FORM_SUBMISSION_DAYS (the daily prune job); returns how many. */
export async function pruneFormSubmissions(now = new Date(), executor: Kysely<DB> = defaultDb) {
	const before = new Date(now.getTime() - FORM_SUBMISSION_DAYS * 24 * 60 * 60 * 1000)
	const result = await executor
		.deleteFrom('form_submissions')
		.where('created_at', '<', before)
		.executeTakeFirst()
	return Number(result.numDeletedRows)
}
