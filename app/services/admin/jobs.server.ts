import { sql, type Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { loadAccountContext, type AccountContext } from '../../context.server.ts'
import { getBoss } from '../../jobs/boss.server.ts'
import { FormError, isUuid, notFound } from '../../utils/http-errors.server.ts'
import { recordAudit } from '../audit/audit-log.server.ts'
import { cancelScrape, retryScrape, type ListKind } from '../leads/scrape-lists.server.ts'
import { cancelRunById } from '../enrichments/run-enrichment.server.ts'
import { assertPlatformAdmin, assertStaff } from './access.server.ts'

/** An active job without a finish after this long is stuck. */
export const STUCK_AFTER_MINUTES = 30
/** A due job nobody has started after this long is stuck in the queue. */
export const WAITING_TOO_LONG_MINUTES = 15

export type ProblemJob = {
	id: string
	queue: string
	state: string
	problem: 'failed' | 'stuck' | 'waiting'
	data: unknown
	error: string | null
	retry_count: number
	created_on: Date
	started_on: Date | null
	completed_on: Date | null
}

function errorOf(output: unknown): string | null {
	if (!output) return null
	if (typeof output === 'string') return output
	if (typeof output === 'object') {
		const o = output as Record<string, unknown>
		if (typeof o.message === 'string') return o.message
		if (typeof o.value === 'string') return o.value
	}
	return JSON.stringify(output).slice(0, 1000)
}

/** Failed jobs of the last week and stuck ones, of every queue, newest first. */
export async function listProblemJobs(
	account: AccountContext | null,
	db: Kysely<DB> = defaultDb,
): Promise<ProblemJob[]> {
	assertStaff(account)
	await getBoss() // installs pg-boss's schema in a process that has not started it yet
	const { rows } = await sql<{
		id: string
		name: string
		state: string
		data: unknown
		output: unknown
		retry_count: number
		created_on: Date
		started_on: Date | null
		completed_on: Date | null
	}>`
		select id, name, state, data, output, retry_count, created_on, started_on, completed_on
		from pgboss.job
		where (state = 'failed' and completed_on > now() - interval '7 days')
			or (state = 'active' and started_on < now() - make_interval(mins => ${STUCK_AFTER_MINUTES}))
			or (state in ('created', 'retry')
				and start_after < now() - make_interval(mins => ${WAITING_TOO_LONG_MINUTES}))
		order by coalesce(completed_on, started_on, created_on) desc
		limit 200`.execute(db)
	return rows.map((row) => ({
		id: row.id,
		queue: row.name,
		state: row.state,
		problem: row.state === 'failed' ? 'failed' : row.state === 'active' ? 'stuck' : 'waiting',
		data: row.data,
		error: errorOf(row.output),
		retry_count: row.retry_count,
		created_on: row.created_on,
		started_on: row.started_on,
		completed_on: row.completed_on,
	}))
}

async function findJob(db: Kysely<DB>, queue: string, id: string) {
	if (!isUuid(id)) notFound('This job')
	const { rows } = await sql<{ id: string; name: string; state: string; data: unknown }>`
		select id, name, state, data from pgboss.job where name = ${queue} and id = ${id}`.execute(db)
	return rows[0] ?? notFound('This job')
}

/** The list a scrape job works on, whose own service retries and cancels it. */
async function scrapeListOf(db: Kysely<DB>, job: { name: string; data: unknown }) {
	const data = (job.data ?? {}) as Record<string, unknown>
	let kind: ListKind | null = null
	let listId: string | null = null
	if (job.name === 'lead-scrape' && isUuid(data.requestId)) {
		const request = await db
			.selectFrom('apollo_requests')
			.select('list_id')
			.where('id', '=', data.requestId)
			.executeTakeFirst()
		kind = 'leads'
		listId = request?.list_id ?? null
	} else if (job.name === 'company-scrape' && isUuid(data.listId)) {
		kind = 'companies'
		listId = data.listId
	}
	if (!kind || !listId) return null
	const table = kind === 'leads' ? 'processing_list' : 'company_scraping_list'
	const list = await db
		.selectFrom(table as 'processing_list')
		.select(['id', 'user_id'])
		.where('id', '=', listId)
		.executeTakeFirst()
	if (!list) return null
	const owner = await db
		.selectFrom('auth.users')
		.select(['id', 'email'])
		.where('id', '=', list.user_id)
		.executeTakeFirst()
	if (!owner) return null
	// The owning service checks the list against an account: the owner's, loaded as the owner
	const context = await loadAccountContext(db, { id: owner.id, email: owner.email ?? '' })
	return { kind, listId: list.id, context }
}

/**
 * Retries a failed job. A scrape goes through its list's own retry (credits reserved again,
 * the status row reset); other kinds are retried in the queue.
 */
export async function retryJob(
	account: AccountContext | null,
	queue: string,
	id: string,
	db: Kysely<DB> = defaultDb,
) {
	const admin = assertPlatformAdmin(account)
	const job = await findJob(db, queue, id)
	if (job.state !== 'failed' && job.state !== 'cancelled') {
		throw new FormError('Only a failed or cancelled job can be retried.')
	}
	const list = await scrapeListOf(db, job)
	if (list) await retryScrape(list.context, list.kind, list.listId)
	else await (await getBoss()).retry(job.name, job.id)
	await recordAudit(db, {
		actorUserId: admin.user.id,
		action: 'admin.job.retry',
		targetType: 'job',
		targetId: job.id,
		before: { queue: job.name, state: job.state },
		after: { queue: job.name, via: list ? `${list.kind} list ${list.listId}` : 'queue' },
	})
}

/**
 * A cancelled job's status row ends too, once, so the user sees "Cancelled" rather than a run
 * that never finishes: an enrichment run through its own cancel (credits settled), a CSV
 * import's list (its worker stops at its next batch, under the list's lock).
 */
async function endStatusRow(db: Kysely<DB>, job: { name: string; data: unknown }) {
	const data = (job.data ?? {}) as Record<string, unknown>
	if (job.name === 'enrich' && isUuid(data.runId)) await cancelRunById(data.runId)
	if (job.name === 'csv-import' && isUuid(data.listId)) {
		await db
			.updateTable('processing_list')
			.set({ status: 3, error: 'Cancelled', finished_at: sql`now()`, updated_at: sql`now()` })
			.where('id', '=', data.listId)
			.where('status', 'in', [0, 1])
			.execute()
	}
}

/** Cancels a stuck or waiting job; a scrape is cancelled through its list (credits settled). */
export async function cancelJob(
	account: AccountContext | null,
	queue: string,
	id: string,
	db: Kysely<DB> = defaultDb,
) {
	const admin = assertPlatformAdmin(account)
	const job = await findJob(db, queue, id)
	if (!['created', 'retry', 'active'].includes(job.state)) {
		throw new FormError('Only a waiting or running job can be cancelled.')
	}
	const list = await scrapeListOf(db, job)
	if (list) await cancelScrape(list.context, list.kind, list.listId)
	else await endStatusRow(db, job)
	await (await getBoss()).cancel(job.name, job.id)
	await recordAudit(db, {
		actorUserId: admin.user.id,
		action: 'admin.job.cancel',
		targetType: 'job',
		targetId: job.id,
		before: { queue: job.name, state: job.state },
		after: { queue: job.name, state: 'cancelled' },
	})
}
