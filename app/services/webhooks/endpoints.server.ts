import { randomBytes } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { getConfig } from '../../config.server.ts'
import { isOwner, type AccountContext } from '../../context.server.ts'
import { internalUrlReason } from '../../integrations/outbound.server.ts'
import { enqueue } from '../../jobs/enqueue.server.ts'
import { forbidden, FormError, notFound } from '../../utils/http-errors.server.ts'
import { openSecret, sealSecret } from '../../utils/secrets.server.ts'
import { inTransaction } from '../../utils/transaction.server.ts'
import { actingAccount, canUseWorkspace, type ActingAccount } from '../workspaces/access.server.ts'
import { recordEvent } from './record.server.ts'
import type { CreateEndpoint } from './schemas.ts'

// An account's webhook endpoints: owners and team admins manage them, each within the
// workspaces they may use (an endpoint for every workspace only with access to all), so a
// team admin never sees or changes an endpoint that reports on a workspace closed to them.
// The signing secret is shown once and sealed at rest; a rotation keeps the previous one
// signing until the overlap ends, so receivers can switch without dropping a delivery.

const SECRET_PURPOSE = 'webhook-secret'

export function canManageWebhooks(account: AccountContext) {
	return isOwner(account) || (account.isActiveTeamMember && account.teamRole === 'admin')
}

function manager(context: AccountContext | null): ActingAccount {
	const account = actingAccount(context)
	if (!canManageWebhooks(account))
		forbidden('Only the account owner and team admins can manage webhooks.')
	return account
}

/** `whsec_` and base64 of 32 random bytes (the Standard Webhooks secret form). */
export function newSigningSecret() {
	return `whsec_${randomBytes(32).toString('base64')}`
}

const sealed = (secret: string, endpointId: string) =>
	sealSecret(secret, SECRET_PURPOSE, endpointId)

/** The secrets that sign now: the current one, and the previous one during its overlap. */
export function signingSecrets(row: {
	id: string
	secret_sealed: string
	previous_secret_sealed: string | null
	previous_secret_until: Date | null
}) {
	const secrets = [openSecret(row.secret_sealed, SECRET_PURPOSE, row.id)]
	if (
		row.previous_secret_sealed &&
		row.previous_secret_until &&
		row.previous_secret_until > new Date()
	)
		secrets.push(openSecret(row.previous_secret_sealed, SECRET_PURPOSE, row.id))
	return secrets
}

/** Whether this person may see an endpoint of these workspaces (none: all of the account). */
function visible(account: ActingAccount, workspaceIds: string[]) {
	if (workspaceIds.length === 0) return account.accessAllWorkspaces
	return workspaceIds.every((id) => canUseWorkspace(account, id))
}

export type EndpointSummary = {
	id: string
	url: string
	description: string
	events: string[]
	workspaceIds: string[]
	status: 'enabled' | 'paused' | 'disabled'
	disabledReason: string | null
	previousSecretUntil: Date | null
	failingSince: Date | null
	createdAt: Date
}

const endpointColumns = [
	'id',
	'url',
	'description',
	'events',
	'workspace_ids',
	'status',
	'disabled_reason',
	'previous_secret_until',
	'failing_since',
	'created_at',
] as const

function summary(row: {
	id: string
	url: string
	description: string
	events: string[]
	workspace_ids: string[]
	status: string
	disabled_reason: string | null
	previous_secret_until: Date | null
	failing_since: Date | null
	created_at: Date
}): EndpointSummary {
	return {
		id: row.id,
		url: row.url,
		description: row.description,
		events: row.events,
		workspaceIds: row.workspace_ids,
		status: row.status as EndpointSummary['status'],
		disabledReason: row.disabled_reason,
		previousSecretUntil:
			row.previous_secret_until && row.previous_secret_until > new Date()
				? row.previous_secret_until
				: null,
		failingSince: row.failing_since,
		createdAt: row.created_at,
	}
}

export async function listEndpoints(context: AccountContext | null) {
	const account = manager(context)
	const rows = await defaultDb
		.selectFrom('webhook_endpoints')
		.select(endpointColumns)
		.where('account_id', '=', account.accountId)
		.orderBy('created_at')
		.execute()
	return rows.filter((r) => visible(account, r.workspace_ids)).map(summary)
}

/** One endpoint of this account that this person may see; another's id is a 404. */
export async function getEndpoint(context: AccountContext | null, endpointId: string) {
	const account = manager(context)
	return summary(await findOwn(defaultDb, account, endpointId))
}

async function findOwn(
	executor: Kysely<DB>,
	account: ActingAccount,
	endpointId: string,
	lock = false,
) {
	const row = await executor
		.selectFrom('webhook_endpoints')
		.select(endpointColumns)
		.where('id', '=', endpointId)
		.where('account_id', '=', account.accountId)
		.$if(lock, (q) => q.forUpdate())
		.executeTakeFirst()
	if (!row || !visible(account, row.workspace_ids)) notFound('This webhook endpoint')
	return row
}

/** A URL a delivery may go to: HTTPS, public (plain HTTP and private hosts with ALLOW_PRIVATE_URLS). */
export function endpointUrlProblem(value: string): string | null {
	const url = new URL(value)
	if (url.username || url.password) return 'Leave the user name and password out of the URL.'
	if (url.protocol !== 'https:' && !getConfig().ALLOW_PRIVATE_URLS)
		return 'Enter an HTTPS URL: deliveries are signed, but only HTTPS keeps them private.'
	return internalUrlReason(value)
}

export async function createEndpoint(context: AccountContext | null, input: CreateEndpoint) {
	const account = manager(context)
	const problem = endpointUrlProblem(input.url)
	if (problem) throw new FormError(problem, 'url')
	const workspaces = [...new Set(input.workspaces)]
	for (const id of workspaces)
		if (!canUseWorkspace(account, id))
			throw new FormError('Choose a workspace from the list.', 'workspaces')
	if (workspaces.length === 0 && !account.accessAllWorkspaces)
		throw new FormError('Choose the workspaces this endpoint reports on.', 'workspaces')
	const count = await defaultDb
		.selectFrom('webhook_endpoints')
		.select((eb) => eb.fn.countAll<number>().as('n'))
		.where('account_id', '=', account.accountId)
		.executeTakeFirstOrThrow()
	if (Number(count.n) >= 20) throw new FormError('An account has at most 20 webhook endpoints.')
	const secret = newSigningSecret()
	const id = crypto.randomUUID()
	await defaultDb
		.insertInto('webhook_endpoints')
		.values({
			id,
			account_id: account.accountId,
			url: input.url,
			description: input.description ?? '',
			events: [...new Set(input.events)],
			workspace_ids: workspaces,
			secret_sealed: sealed(secret, id),
			created_by: account.user.id,
		})
		.execute()
	return { id, secret }
}

/**
 * A new secret; the previous one keeps signing (both signatures on every delivery) until
 * `overlapHours` from now. A second rotation during an overlap ends the first one's.
 */
export async function rotateSecret(
	context: AccountContext | null,
	endpointId: string,
	overlapHours: number,
) {
	const account = manager(context)
	const secret = newSigningSecret()
	await defaultDb.transaction().execute(async (trx) => {
		await findOwn(trx, account, endpointId, true)
		await trx
			.updateTable('webhook_endpoints')
			.set({
				previous_secret_sealed: overlapHours > 0 ? sql<string>`secret_sealed` : null,
				previous_secret_until:
					overlapHours > 0 ? sql<Date>`now() + ${overlapHours} * interval '1 hour'` : null,
				secret_sealed: sealed(secret, endpointId),
				updated_at: sql`now()`,
			})
			.where('id', '=', endpointId)
			.execute()
	})
	return { id: endpointId, secret }
}

/** Paused: no new deliveries and retries wait; resumed (or re-enabled): the waiting ones go. */
export async function setPaused(
	context: AccountContext | null,
	endpointId: string,
	paused: boolean,
) {
	const account = manager(context)
	await defaultDb.transaction().execute(async (trx) => {
		await findOwn(trx, account, endpointId, true)
		await trx
			.updateTable('webhook_endpoints')
			.set(
				paused
					? { status: 'paused', updated_at: sql`now()` }
					: {
							status: 'enabled',
							disabled_reason: null,
							failing_since: null,
							updated_at: sql`now()`,
						},
			)
			.where('id', '=', endpointId)
			.execute()
		if (!paused) await requeuePending(trx, endpointId)
	})
}

/** Queues the next attempt of every pending delivery of an endpoint (after a pause). */
async function requeuePending(trx: Kysely<DB>, endpointId: string) {
	const pending = await trx
		.selectFrom('webhook_deliveries')
		.select(['id', 'attempts'])
		.where('endpoint_id', '=', endpointId)
		.where('status', '=', 'pending')
		.execute()
	for (const d of pending)
		await enqueue('webhook-delivery', { deliveryId: d.id, attempt: d.attempts }, { db: trx })
}

export async function deleteEndpoint(context: AccountContext | null, endpointId: string) {
	const account = manager(context)
	await defaultDb.transaction().execute(async (trx) => {
		await findOwn(trx, account, endpointId, true)
		await trx.deleteFrom('webhook_endpoints').where('id', '=', endpointId).execute()
	})
}

/** A `webhook.test` event to this endpoint only, through the same outbox and delivery. */
export async function sendTestEvent(context: AccountContext | null, endpointId: string) {
	const account = manager(context)
	await defaultDb.transaction().execute(async (trx) => {
		const row = await findOwn(trx, account, endpointId)
		if (row.status !== 'enabled')
			throw new FormError('Resume the endpoint first: a paused or disabled endpoint gets nothing.')
		await recordEvent(trx, {
			accountId: account.accountId,
			workspaceId: null,
			type: 'webhook.test',
			endpointId,
			data: { endpoint_id: endpointId, message: 'A test event from Leadsmith.' },
		})
	})
}

export async function getCreditsThreshold(context: AccountContext | null) {
	const account = manager(context)
	const row = await defaultDb
		.selectFrom('webhook_settings')
		.select('credits_below')
		.where('account_id', '=', account.accountId)
		.executeTakeFirst()
	return row?.credits_below ?? null
}

export async function setCreditsThreshold(
	context: AccountContext | null,
	creditsBelow: number | null,
) {
	const account = manager(context)
	if (!account.accessAllWorkspaces)
		forbidden('Only those with access to every workspace set the account’s credit threshold.')
	await defaultDb
		.insertInto('webhook_settings')
		.values({ account_id: account.accountId, credits_below: creditsBelow })
		.onConflict((oc) =>
			oc.column('account_id').doUpdateSet({ credits_below: creditsBelow, updated_at: sql`now()` }),
		)
		.execute()
}

export type DeliveryRow = {
	id: number
	eventId: string
	type: string
	status: string
	attempts: number
	lastStatusCode: number | null
	lastLatencyMs: number | null
	lastResponse: string | null
	lastError: string | null
	nextAttemptAt: Date | null
	createdAt: Date
}

/** The endpoint's latest deliveries, newest first. */
export async function listDeliveries(
	context: AccountContext | null,
	endpointId: string,
	limit = 50,
): Promise<DeliveryRow[]> {
	const account = manager(context)
	await findOwn(defaultDb, account, endpointId)
	const rows = await defaultDb
		.selectFrom('webhook_deliveries as d')
		.innerJoin('webhook_events as e', 'e.id', 'd.event_id')
		.select(['d.id', 'd.event_id', 'e.type', 'd.status', 'd.attempts', 'd.last_status_code'])
		.select(['d.last_latency_ms', 'd.last_response', 'd.last_error', 'd.next_attempt_at'])
		.select('d.created_at')
		.where('d.endpoint_id', '=', endpointId)
		.orderBy('d.id', 'desc')
		.limit(limit)
		.execute()
	return rows.map((r) => ({
		id: r.id,
		eventId: r.event_id,
		type: r.type,
		status: r.status,
		attempts: r.attempts,
		lastStatusCode: r.last_status_code,
		lastLatencyMs: r.last_latency_ms,
		lastResponse: r.last_response,
		lastError: r.last_error,
		nextAttemptAt: r.status === 'pending' ? r.next_attempt_at : null,
		createdAt: r.created_at,
	}))
}

/** Sends a delivery again at once, with the same webhook-id, as a new round of retries. */
export async function redeliver(
	context: AccountContext | null,
	endpointId: string,
	deliveryId: number,
	executor: Kysely<DB> = defaultDb,
) {
	const account = manager(context)
	await inTransaction(executor, async (trx) => {
		const endpoint = await findOwn(trx, account, endpointId)
		if (endpoint.status !== 'enabled')
			throw new FormError('Resume the endpoint first: a paused or disabled endpoint gets nothing.')
		const row = await trx
			.updateTable('webhook_deliveries')
			.set({
				status: 'pending',
				round_attempts: 0,
				next_attempt_at: sql`now()`,
				updated_at: sql`now()`,
			})
			.where('id', '=', deliveryId)
			.where('endpoint_id', '=', endpointId)
			.returning('attempts')
			.executeTakeFirst()
		if (!row) notFound('This delivery')
		await enqueue('webhook-delivery', { deliveryId, attempt: row.attempts }, { db: trx })
	})
}
