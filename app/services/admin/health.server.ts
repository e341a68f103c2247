import { sql, type Kysely } from 'kysely'
import { embeddedState } from '../../../db/embedded-state.ts'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { getConfig, type Config } from '../../config.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { createApifyClient } from '../../integrations/apify.server.ts'
import { createApolloClient } from '../../integrations/apollo.server.ts'
import { listModels } from '../../integrations/openai.server.ts'
import { checkStripeKey } from '../../integrations/stripe.server.ts'
import { recordAudit } from '../audit/audit-log.server.ts'
import { assertPlatformAdmin, assertStaff } from './access.server.ts'

/** pg-boss's schema (app/jobs/boss.server.ts; not imported, which would make an import cycle). */
const BOSS_SCHEMA = 'pgboss'

export type CheckResult = { service: string; ok: boolean; latencyMs: number; detail: string }

/** Queue lag above this many seconds (the oldest job due but not started) counts as a failure. */
export const QUEUE_LAG_LIMIT_SECONDS = 300

async function timed(service: string, check: () => Promise<string>): Promise<CheckResult> {
	const started = performance.now()
	try {
		const detail = await check()
		return { service, ok: true, latencyMs: Math.round(performance.now() - started), detail }
	} catch (error) {
		const detail = error instanceof Error ? error.message : String(error)
		return {
			service,
			ok: false,
			latencyMs: Math.round(performance.now() - started),
			detail: detail.slice(0, 500),
		}
	}
}

export function checkDatabase(db: Kysely<DB> = defaultDb) {
	return timed('database', async () => {
		await sql`select 1`.execute(db)
		return 'select 1'
	})
}

/** The queue: its tables answer, and how long the oldest due job has waited (its lag). */
export function checkQueue(db: Kysely<DB> = defaultDb) {
	return timed('queue', async () => {
		const { rows } = await sql<{ lag: number | null; waiting: string }>`
			select extract(epoch from now() - min(start_after))::float8 as lag, count(*) as waiting
			from ${sql.table(`${BOSS_SCHEMA}.job`)}
			where state in ('created', 'retry') and start_after <= now()`.execute(db)
		const lag = Math.max(0, Math.round(rows[0]?.lag ?? 0))
		const detail = `lag ${lag}s, ${rows[0]?.waiting ?? 0} waiting`
		if (lag > QUEUE_LAG_LIMIT_SECONDS) throw new Error(detail)
		return detail
	})
}

/** A cheap authenticated call per configured platform provider key. */
export function providerChecks(config: Config = getConfig()): (() => Promise<CheckResult>)[] {
	const checks: (() => Promise<CheckResult>)[] = []
	if (config.APIFY_TOKEN) {
		const token = config.APIFY_TOKEN
		checks.push(() =>
			timed('apify', async () => {
				const client = createApifyClient({
					baseUrl: config.APIFY_BASE_URL,
					token,
					retryDelayMs: 200,
				})
				await client.checkToken()
				return 'token accepted'
			}),
		)
	}
	if (config.APOLLO_API_KEY) {
		const apiKey = config.APOLLO_API_KEY
		checks.push(() =>
			timed('apollo', async () => {
				const client = createApolloClient({
					baseUrl: config.APOLLO_BASE_URL,
					apiKey,
					retryDelayMs: 200,
				})
				const health = await client.health()
				if (health.is_logged_in === false) throw new Error('Apollo refused the key')
				return 'key accepted'
			}),
		)
	}
	if (config.OPENAI_API_KEY) {
		const apiKey = config.OPENAI_API_KEY
		checks.push(() =>
			timed('openai', async () => {
				const { models, keyChecked } = await listModels({ baseUrl: config.OPENAI_BASE_URL, apiKey })
				return `${models.length} models${keyChecked ? '' : ' (listed without a key: the key is not checked)'}`
			}),
		)
	}
	if (config.STRIPE_SECRET_KEY) {
		checks.push(() =>
			timed('stripe', async () => {
				await checkStripeKey()
				return 'key accepted'
			}),
		)
	}
	return checks
}

/** The check-server job: every check, each stored in check_server. */
export async function runServerChecks(db: Kysely<DB> = defaultDb, config: Config = getConfig()) {
	const results = await Promise.all([
		checkDatabase(db),
		checkQueue(db),
		...providerChecks(config).map((check) => check()),
	])
	await db
		.insertInto('check_server')
		.values(
			results.map((r) => ({
				service: r.service,
				ok: r.ok,
				latency_ms: r.latencyMs,
				detail: r.detail,
			})),
		)
		.execute()
	// a day of history is what the dashboard shows; keep a week
	await db
		.deleteFrom('check_server')
		.where('checked_at', '<', new Date(Date.now() - 7 * 86_400_000))
		.execute()
	return results
}

/**
 * /readyz: the database answers and the queue's tables exist; with the embedded PostgreSQL,
 * also whether it runs or is being restarted (decision 0061).
 */
export async function readiness(db: Kysely<DB> = defaultDb) {
	const [database, queue] = await Promise.all([
		checkDatabase(db),
		timed('queue', async () => {
			await sql`select 1 from ${sql.table(`${BOSS_SCHEMA}.job`)} limit 1`.execute(db)
			return 'ready'
		}),
	])
	const embedded = embeddedCheck()
	const checks = [...(embedded ? [embedded] : []), database, queue]
	return { ok: checks.every((c) => c.ok), checks }
}

function embeddedCheck(): CheckResult | null {
	const state = embeddedState()
	if (!state) return null
	if (state.up) return { service: 'embedded database', ok: true, latencyMs: 0, detail: 'running' }
	const seconds = Math.round((Date.now() - (state.downSince ?? Date.now())) / 1000)
	const last = state.lastError ? `; last start: ${state.lastError.slice(0, 300)}` : ''
	return {
		service: 'embedded database',
		ok: false,
		latencyMs: 0,
		detail: `down ${seconds} s, restarting (${state.attempts} ${state.attempts === 1 ? 'attempt' : 'attempts'}${last})`,
	}
}

/** The dashboard: the latest result per service and the last 24 hours. */
export async function getServerHealth(account: AccountContext | null, db: Kysely<DB> = defaultDb) {
	assertStaff(account)
	const since = new Date(Date.now() - 86_400_000)
	const history = await db
		.selectFrom('check_server')
		.select(['id', 'service', 'ok', 'latency_ms', 'detail', 'checked_at'])
		.where('checked_at', '>=', since)
		.orderBy('checked_at', 'desc')
		.limit(2000)
		.execute()
	const latest = new Map<string, (typeof history)[number]>()
	for (const row of history) if (!latest.has(row.service)) latest.set(row.service, row)
	const services = [...new Set(history.map((r) => r.service))].sort()
	return {
		latest: [...latest.values()].sort((a, b) => a.service.localeCompare(b.service)),
		day: services.map((service) => {
			const rows = history.filter((r) => r.service === service)
			const failures = rows.filter((r) => !r.ok)
			return {
				service,
				checks: rows.length,
				failures: failures.length,
				lastFailure: failures[0] ?? null,
			}
		}),
	}
}

/** An admin runs the checks now instead of waiting for the scheduled job. */
export async function runChecksNow(account: AccountContext | null, db: Kysely<DB> = defaultDb) {
	const admin = assertPlatformAdmin(account)
	const results = await runServerChecks(db)
	await recordAudit(db, {
		actorUserId: admin.user.id,
		action: 'admin.health.check',
		targetType: 'check_server',
		targetId: 'all',
		before: null,
		after: Object.fromEntries(results.map((r) => [r.service, r.ok])),
	})
	return results
}
