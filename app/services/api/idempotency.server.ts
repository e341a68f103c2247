import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import { ApiProblem } from './problem.server.ts'

// Idempotency-Key on the API's POSTs (as Stripe's): the first answer is kept 24 h per account
// and key and sent again, exactly, for a repeat; the work is not done twice. The key is claimed
// by an insert before the work starts, so a repeat sent while the first still runs finds the
// claim and gets 409 (retry later) instead of running beside it.

const KEY = /^[\x21-\x7e]{1,255}$/

export const IDEMPOTENCY_HEADER = 'Idempotency-Key'

export function idempotencyKeyOf(request: Request): string | null {
	const key = request.headers.get(IDEMPOTENCY_HEADER)
	if (key === null) return null
	if (!KEY.test(key)) {
		throw new ApiProblem(
			400,
			'invalid_idempotency_key',
			'Idempotency-Key must be 1 to 255 visible ASCII characters.',
			{ errors: [{ field: 'Idempotency-Key', code: 'invalid', message: 'Not a valid key' }] },
		)
	}
	return key
}

/**
 * Runs `work` once per (account, key): a repeat with the same request gets the first answer
 * (with `Idempotent-Replayed: true`), one with another request 422. An answer of 500 or a crash
 * frees the key, so the client may try again.
 */
export async function oncePerKey(
	input: { accountId: string; key: string; fingerprint: string },
	work: () => Promise<Response>,
): Promise<Response> {
	const { accountId, key, fingerprint } = input
	// a key older than 24 h is free again
	await db
		.deleteFrom('api_idempotency_keys')
		.where('account_id', '=', accountId)
		.where('key', '=', key)
		.where('created_at', '<', sql<Date>`now() - interval '24 hours'`)
		.execute()
	const claimed = await db
		.insertInto('api_idempotency_keys')
		.values({ account_id: accountId, key, fingerprint })
		.onConflict((oc) => oc.columns(['account_id', 'key']).doNothing())
		.returning('key')
		.executeTakeFirst()
	if (!claimed) return replay(input)
	let response: Response
	try {
		response = await work()
	} catch (error) {
		await release(accountId, key)
		throw error
	}
	if (response.status >= 500) {
		await release(accountId, key)
		return response
	}
	const body = await response.text()
	await db
		.updateTable('api_idempotency_keys')
		.set({
			status: response.status,
			body,
			content_type: response.headers.get('Content-Type'),
		})
		.where('account_id', '=', accountId)
		.where('key', '=', key)
		.execute()
	return new Response(body, { status: response.status, headers: response.headers })
}

async function replay(input: { accountId: string; key: string; fingerprint: string }) {
	const first = await db
		.selectFrom('api_idempotency_keys')
		.select(['fingerprint', 'status', 'body', 'content_type'])
		.where('account_id', '=', input.accountId)
		.where('key', '=', input.key)
		.executeTakeFirst()
	if (first && first.fingerprint !== input.fingerprint) {
		throw new ApiProblem(
			422,
			'idempotency_key_reused',
			'This Idempotency-Key was used with another request. Use a new key for a new request.',
			{
				errors: [{ field: 'Idempotency-Key', code: 'reused', message: 'Used for another request' }],
			},
		)
	}
	if (!first || first.status === null) {
		throw new ApiProblem(
			409,
			'idempotency_in_progress',
			'A request with this Idempotency-Key is still running. Retry in a moment.',
			{ headers: { 'Retry-After': '1' } },
		)
	}
	const headers = new Headers({ 'Idempotent-Replayed': 'true' })
	if (first.content_type) headers.set('Content-Type', first.content_type)
	return new Response(first.body, { status: first.status, headers })
}

async function release(accountId: string, key: string) {
	await db
		.deleteFrom('api_idempotency_keys')
		.where('account_id', '=', accountId)
		.where('key', '=', key)
		.where('status', 'is', null)
		.execute()
}
