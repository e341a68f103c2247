import { sql, type Kysely } from 'kysely'
import { Webhook } from 'standardwebhooks'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { isBlockedAddress, userUrlFetch } from '../../integrations/outbound.server.ts'
import { enqueue } from '../../jobs/enqueue.server.ts'
import { signingSecrets } from './endpoints.server.ts'

/** Seconds before each retry after a failed attempt: at once, then these (Svix's schedule). */
export const RETRY_DELAYS_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600]
/** An endpoint whose deliveries have failed for this long is disabled and its owner mailed. */
export const DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000
export const DELIVERY_TIMEOUT_MS = 10_000
/** How much of the answer the delivery log keeps. */
const RESPONSE_KEPT = 500

/** The webhook-id of an event: the receiver's dedupe key, the same on every retry and redelivery. */
export const webhookId = (eventId: string) => `msg_${eventId.replaceAll('-', '')}`

type Attempt = {
	ok: boolean
	statusCode: number | null
	latencyMs: number
	response: string | null
	error: string | null
}

/** The start of an answer's body, read no further than needed. */
async function startOf(response: Response) {
	if (!response.body) return ''
	const reader = response.body.getReader()
	const decoder = new TextDecoder()
	let text = ''
	try {
		while (text.length < RESPONSE_KEPT) {
			const { done, value } = await reader.read()
			if (done) break
			text += decoder.decode(value, { stream: true })
		}
	} finally {
		await reader.cancel().catch(() => {})
	}
	return text.slice(0, RESPONSE_KEPT)
}

function whyFailed(error: unknown): string {
	if (isBlockedAddress(error))
		return 'The URL leads to a private or internal address: nothing was sent.'
	const text = `${String(error)} ${String((error as { cause?: unknown })?.cause ?? '')}`
	if (/redirect/i.test(text)) return 'The endpoint answered with a redirect, which is not followed.'
	if (/timeout|aborted/i.test(text)) return 'No answer within 10 seconds.'
	return 'Could not connect to the endpoint.'
}

/** One signed POST of an event's body, with every signing secret (both during an overlap). */
export async function postSigned(
	url: string,
	secrets: string[],
	message: { id: string; body: string },
	signal?: AbortSignal,
): Promise<Attempt> {
	const now = new Date()
	const signature = secrets.map((s) => new Webhook(s).sign(message.id, now, message.body)).join(' ')
	const started = performance.now()
	try {
		const response = await userUrlFetch(url, {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				'user-agent': 'Leadsmith-Webhooks/1',
				'webhook-id': message.id,
				'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
				'webhook-signature': signature,
			},
			body: message.body,
			signal: AbortSignal.any([
				AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
				...(signal ? [signal] : []),
			]),
		})
		const response_ = await startOf(response).catch(() => '')
		const ok = response.status >= 200 && response.status < 300
		return {
			ok,
			statusCode: response.status,
			latencyMs: Math.round(performance.now() - started),
			response: response_,
			error: ok ? null : `The endpoint answered ${response.status}.`,
		}
	} catch (error) {
		if (signal?.aborted) throw error
		return {
			ok: false,
			statusCode: null,
			latencyMs: Math.round(performance.now() - started),
			response: null,
			error: whyFailed(error),
		}
	}
}

/**
 * The webhook-delivery job: one attempt of one delivery. Done when the delivery is no longer
 * pending or this attempt was recorded already (a stale or doubled job). The attempt's result,
 * the next attempt's job (on the retry schedule) and the endpoint's failing state are written in
 * one transaction, guarded by the attempt number, so a worker killed after the POST but before
 * that commit makes pg-boss run the job again: the same webhook-id goes again (at least once).
 */
export async function deliverWebhook(
	job: { deliveryId: number; attempt: number },
	options: { signal?: AbortSignal; db?: Kysely<DB> } = {},
) {
	const db = options.db ?? defaultDb
	const row = await db
		.selectFrom('webhook_deliveries as d')
		.innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
		.innerJoin('webhook_events as ev', 'ev.id', 'd.event_id')
		.select(['d.status', 'd.attempts', 'e.id', 'e.url', 'e.status as endpoint_status'])
		.select(['e.secret_sealed', 'e.previous_secret_sealed', 'e.previous_secret_until'])
		.select(['ev.id as event_id', 'ev.type', 'ev.data', 'ev.created_at'])
		.where('d.id', '=', job.deliveryId)
		.executeTakeFirst()
	if (!row || row.status !== 'pending' || row.attempts !== job.attempt) return
	// paused or disabled: the delivery waits; resuming queues it again
	if (row.endpoint_status !== 'enabled') return
	const id = webhookId(row.event_id)
	const body = JSON.stringify({
		id,
		type: row.type,
		timestamp: row.created_at.toISOString(),
		data: row.data,
	})
	const result = await postSigned(row.url, signingSecrets(row), { id, body }, options.signal)
	await recordAttempt(db, job, row.id, result)
}

async function recordAttempt(
	db: Kysely<DB>,
	job: { deliveryId: number; attempt: number },
	endpointId: string,
	result: Attempt,
) {
	await db.transaction().execute(async (trx) => {
		const updated = await trx
			.updateTable('webhook_deliveries')
			.set((eb) => ({
				attempts: job.attempt + 1,
				round_attempts: eb('round_attempts', '+', 1),
				last_status_code: result.statusCode,
				last_latency_ms: result.latencyMs,
				last_response: result.response,
				last_error: result.error,
				updated_at: sql`now()`,
				...(result.ok
					? { status: 'succeeded', delivered_at: sql`now()`, next_attempt_at: null }
					: {}),
			}))
			.where('id', '=', job.deliveryId)
			.where('attempts', '=', job.attempt)
			.where('status', '=', 'pending')
			.returning('round_attempts')
			.executeTakeFirst()
		if (!updated) return
		if (result.ok) {
			await trx
				.updateTable('webhook_endpoints')
				.set({ failing_since: null })
				.where('id', '=', endpointId)
				.where('failing_since', 'is not', null)
				.execute()
			return
		}
		const delay = RETRY_DELAYS_SECONDS[updated.round_attempts - 1]
		if (delay === undefined) {
			await trx
				.updateTable('webhook_deliveries')
				.set({ status: 'failed', next_attempt_at: null })
				.where('id', '=', job.deliveryId)
				.execute()
		} else {
			const startAfter = new Date(Date.now() + delay * 1000)
			await trx
				.updateTable('webhook_deliveries')
				.set({ next_attempt_at: startAfter })
				.where('id', '=', job.deliveryId)
				.execute()
			await enqueue(
				'webhook-delivery',
				{ deliveryId: job.deliveryId, attempt: job.attempt + 1 },
				{ db: trx, startAfter },
			)
		}
		const endpoint = await trx
			.updateTable('webhook_endpoints')
			.set({ failing_since: sql`coalesce(failing_since, now())` })
			.where('id', '=', endpointId)
			.returning(['failing_since', 'status'])
			.executeTakeFirstOrThrow()
		if (
			endpoint.status === 'enabled' &&
			Date.now() - endpoint.failing_since!.getTime() >= DISABLE_AFTER_MS
		) {
			await trx
				.updateTable('webhook_endpoints')
				.set({
					status: 'disabled',
					disabled_reason: 'Every delivery failed for 5 days.',
					updated_at: sql`now()`,
				})
				.where('id', '=', endpointId)
				.execute()
			await enqueue('webhook-disabled-mail', { endpointId }, { db: trx })
		}
	})
}
