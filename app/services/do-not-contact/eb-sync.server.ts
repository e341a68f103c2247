import { sql, type Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { isTransientDatabaseError } from '../../../db/errors.ts'
import type { AccountContext } from '../../context.server.ts'
import {
	EmailBisonError,
	type EbWorkspace,
	type EmailBisonClient,
} from '../../integrations/emailbison.server.ts'
import { enqueue } from '../../jobs/enqueue.server.ts'
import { endedJob, quietFor, whyEnded, withoutLiveJob } from '../../jobs/ended.server.ts'
import type { JobContext } from '../../jobs/define.server.ts'
import { FormError, forbidden, isUuid, notFound } from '../../utils/http-errors.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { loadEmailBisonAccess, NOT_CONFIGURED } from '../emailbison/settings.server.ts'
import {
	inEbWorkspace,
	superAdminClient,
	type ClientOptions,
} from '../emailbison/workspace-client.server.ts'
import { dncAccount } from './entries.server.ts'
import { parseEntry } from './schemas.ts'

// Issue 36 point 4 (decision 0098): entries pushed to the blacklists of the account's EmailBison
// workspaces exactly once per entry and workspace, and EmailBison's blacklists and unsubscribed
// leads pulled back as entries. Exactly once: a batch is claimed ('sending') and committed before
// its calls; a call's outcome is written as it ends; a run that finds 'sending' rows (its own
// after a kill -9, or a dead run's) reads EmailBison's blacklist and counts what is there as
// synced, and only the rest is claimed again. One run per account is queued or running at a time
// (a unique index): a double submit, a schedule and an entry added meet the same run.

/** Entries claimed and sent per step (their calls run a few at a time). */
const BATCH = 50
const PARALLEL = 4
/** The retries of a run's job; a rate limit spends none (the worker puts it back). */
export const SYNC_RETRY_LIMIT = 5

type Problem = { workspace: string; what: string; reason: string }
type Scope = { accountWide: boolean; workspaceIds: string[] | null }

/** Who may sync what: the owner and admins everything, others their workspaces' entries. */
function syncScope(account: AccountContext | null, workspaceId: string | null): Scope {
	const access = dncAccount(account)
	if (workspaceId) {
		if (!isUuid(workspaceId) || !access.workspaceIds.includes(workspaceId))
			notFound('This workspace')
		return { accountWide: false, workspaceIds: [workspaceId] }
	}
	if (access.canEditAccountWide) return { accountWide: true, workspaceIds: null }
	return { accountWide: false, workspaceIds: access.workspaceIds }
}

/**
 * Starts a sync (or joins the one queued or running for the account): push, and pull when the
 * user may change account-wide entries (pulled entries are account-wide). `workspaceId` limits
 * the push to one workspace's entries. Pass the idempotency transaction as `db`.
 */
export async function startDncSync(
	account: AccountContext | null,
	input: { workspaceId?: string | null; pull?: boolean },
	db: Kysely<DB> = defaultDb,
) {
	const access = dncAccount(account)
	const scope = syncScope(account, input.workspaceId ?? null)
	if (input.pull && !access.canEditAccountWide)
		forbidden('Only the account owner and team admins bring EmailBison’s blacklist in.')
	const accountId = access.acting.accountId
	if (!(await loadEmailBisonAccess(accountId))) throw new FormError(NOT_CONFIGURED)
	return queueRun(db, accountId, {
		createdBy: access.acting.user.id,
		workspaceIds: scope.workspaceIds,
		pull: Boolean(input.pull && scope.accountWide),
	})
}

/** A run queued for the account, or the active one widened (queued) or as it is (running). */
async function queueRun(
	db: Kysely<DB>,
	accountId: string,
	input: { createdBy: string | null; workspaceIds: string[] | null; pull: boolean },
) {
	const inserted = await db
		.insertInto('dnc_sync_runs')
		.values({
			user_id: accountId,
			created_by: input.createdBy,
			workspace_ids: input.workspaceIds,
			pull: input.pull,
		})
		.onConflict((oc) =>
			oc
				.column('user_id')
				.where('status', 'in', ['queued', 'running'])
				// still queued: it takes the wider scope and the pull too
				.doUpdateSet({
					workspace_ids: sql`case when dnc_sync_runs.workspace_ids is null or excluded.workspace_ids is null then null
						else array(select distinct unnest(dnc_sync_runs.workspace_ids || excluded.workspace_ids)) end`,
					pull: sql`dnc_sync_runs.pull or excluded.pull`,
				})
				.where('dnc_sync_runs.status', '=', 'queued'),
		)
		.returning(['id', sql<boolean>`xmax = 0`.as('created')])
		.executeTakeFirst()
	if (inserted) {
		if (inserted.created) await enqueue('dnc-sync', { runId: inserted.id }, { db })
		return { id: inserted.id, joined: !inserted.created }
	}
	// running: the running one goes on until no unsent entry is left, new ones included
	const running = await db
		.selectFrom('dnc_sync_runs')
		.select('id')
		.where('user_id', '=', accountId)
		.where('status', 'in', ['queued', 'running'])
		.executeTakeFirst()
	// it ended in between: queue a new one
	if (!running) return queueRun(db, accountId, input)
	return { id: running.id, joined: true }
}

/**
 * After entries were added or imported: a push of what this user may sync, when EmailBison is
 * connected (a failure to queue is logged, never the add's failure).
 */
export async function syncAfterChange(account: AccountContext | null) {
	try {
		const access = dncAccount(account)
		if (!(await loadEmailBisonAccess(access.acting.accountId))) return
		const scope = syncScope(account, null)
		await queueRun(defaultDb, access.acting.accountId, {
			createdBy: access.acting.user.id,
			workspaceIds: scope.workspaceIds,
			pull: false,
		})
	} catch (error) {
		logger.warn({ err: error }, 'queueing a do-not-contact sync failed')
	}
}

/** The daily schedule: a push and pull for every account with EmailBison connected. */
export async function queueDailyDncSyncs() {
	const accounts = await defaultDb
		.selectFrom('settings')
		.select('user_id')
		.where('emailbison_api_url', 'is not', null)
		.where('super_admin_api_key', 'is not', null)
		.execute()
	for (const { user_id } of accounts)
		await queueRun(defaultDb, user_id, { createdBy: null, workspaceIds: null, pull: true })
}

export type DncSyncRun = {
	id: string
	status: string
	push: boolean
	pull: boolean
	total: number
	sent: number
	failed: number
	pulled: number
	problems: Problem[]
	error: string | null
	createdAt: Date
	finishedAt: Date | null
}

const RUN_COLUMNS = [
	'id',
	'status',
	'push',
	'pull',
	'total',
	'sent',
	'failed',
	'pulled',
	'problems',
	'error',
	'created_at',
	'finished_at',
] as const

function runView(row: {
	id: string
	status: string
	push: boolean
	pull: boolean
	total: number
	sent: number
	failed: number
	pulled: number
	problems: unknown
	error: string | null
	created_at: Date
	finished_at: Date | null
}): DncSyncRun {
	return {
		id: row.id,
		status: row.status,
		push: row.push,
		pull: row.pull,
		total: row.total,
		sent: row.sent,
		failed: row.failed,
		pulled: row.pulled,
		problems: row.problems as Problem[],
		error: row.error,
		createdAt: row.created_at,
		finishedAt: row.finished_at,
	}
}

/** A run of the account by id (another account's, or a bad id: 404), else its latest run. */
export async function findDncSyncRun(account: AccountContext | null, id?: string | null) {
	const access = dncAccount(account)
	let query = defaultDb
		.selectFrom('dnc_sync_runs')
		.select(RUN_COLUMNS)
		.where('user_id', '=', access.acting.accountId)
	if (id != null) {
		if (!isUuid(id)) notFound('This sync')
		query = query.where('id', '=', id)
	}
	const row = await query.orderBy('created_at', 'desc').limit(1).executeTakeFirst()
	if (!row && id != null) notFound('This sync')
	return row ? runView(row) : null
}

export type EntrySyncState =
	| { state: 'synced' }
	| { state: 'not-synced'; detail: string }
	| { state: 'failed'; reason: string }

/**
 * Each entry's state against the EmailBison workspaces it goes to: every one for an
 * account-wide entry (as the last run found them), those a workspace's lists were uploaded to
 * for a workspace's entry.
 */
export async function entrySyncStates(
	accountId: string,
	entries: { id: string; workspaceId: string | null }[],
): Promise<Map<string, EntrySyncState>> {
	const states = new Map<string, EntrySyncState>()
	if (entries.length === 0) return states
	const [last, links, rows] = await Promise.all([
		defaultDb
			.selectFrom('dnc_sync_runs')
			.select('targets')
			.where('user_id', '=', accountId)
			.where('targets', 'is not', null)
			.orderBy('created_at', 'desc')
			.limit(1)
			.executeTakeFirst(),
		workspaceLinks(defaultDb, accountId),
		defaultDb
			.selectFrom('dnc_eb_sync as s')
			.select(['s.entry_id', 's.eb_workspace_id', 's.status', 's.error'])
			.where(
				's.entry_id',
				'in',
				entries.map((e) => e.id),
			)
			.execute(),
	])
	const targets = ((last?.targets ?? []) as EbWorkspace[]).map((t) => String(t.id))
	const names = new Map(((last?.targets ?? []) as EbWorkspace[]).map((t) => [String(t.id), t.name]))
	const byEntry = new Map<string, typeof rows>()
	for (const r of rows) byEntry.set(r.entry_id, [...(byEntry.get(r.entry_id) ?? []), r])
	for (const entry of entries) {
		const mine = byEntry.get(entry.id) ?? []
		const failed = mine.find((r) => r.status === 'failed')
		if (failed) {
			const where = names.get(failed.eb_workspace_id) ?? `workspace ${failed.eb_workspace_id}`
			states.set(entry.id, { state: 'failed', reason: `${where}: ${failed.error ?? 'refused'}` })
			continue
		}
		const wanted = entry.workspaceId
			? targets.filter((t) => links.get(entry.workspaceId!)?.has(t))
			: targets
		const synced = new Set(mine.filter((r) => r.status === 'synced').map((r) => r.eb_workspace_id))
		if (wanted.length > 0 && wanted.every((t) => synced.has(t)))
			states.set(entry.id, { state: 'synced' })
		else
			states.set(entry.id, {
				state: 'not-synced',
				detail:
					targets.length === 0
						? 'not sent to EmailBison yet'
						: wanted.length === 0
							? 'no EmailBison workspace gets this workspace’s uploads yet'
							: `in ${wanted.filter((t) => synced.has(t)).length} of ${wanted.length} EmailBison workspaces`,
			})
	}
	return states
}

/** Leadsmith workspace -> the EmailBison workspaces its lists were uploaded to. */
async function workspaceLinks(db: Kysely<DB>, accountId: string) {
	const rows = await db
		.selectFrom('emailbison_upload')
		.select(['workspace_id', 'eb_workspace_id'])
		.distinct()
		.where('user_id', '=', accountId)
		.where('workspace_id', 'is not', null)
		.execute()
	const links = new Map<string, Set<string>>()
	for (const r of rows) {
		const set = links.get(r.workspace_id!) ?? new Set<string>()
		set.add(r.eb_workspace_id)
		links.set(r.workspace_id!, set)
	}
	return links
}

/** Why an answer means "this instance does not offer it" (a probe: never retried, never a crash). */
function unsupported(error: unknown) {
	if (!(error instanceof EmailBisonError)) return false
	return (
		error.kind === 'not-found' ||
		error.kind === 'unsupported' ||
		error.status === 405 ||
		// a 200 that is not the documented JSON
		(error.kind === 'unavailable' && error.status !== undefined && error.status < 300)
	)
}

function unsupportedReason(error: unknown) {
	const status = error instanceof EmailBisonError ? error.status : undefined
	if (status === 404 || status === 405)
		return `this EmailBison does not offer it through its API (it answered ${status})`
	return 'EmailBison answered in a shape its API does not document'
}

const ALREADY_THERE = /already (been )?(taken|exists|blacklisted)|already on/i

/**
 * The dnc-sync job: pull (when asked), then push. Resumes after a crash: 'sending' rows are
 * reconciled with EmailBison's blacklist first, so nothing is sent twice.
 */
export async function runDncSync(runId: string, job: JobContext, options: ClientOptions = {}) {
	const db = defaultDb
	const run = await db
		.selectFrom('dnc_sync_runs')
		.selectAll()
		.where('id', '=', runId)
		.executeTakeFirst()
	if (!run || run.status === 'done' || run.status === 'failed') return
	await db
		.updateTable('dnc_sync_runs')
		.set({ status: 'running', updated_at: new Date() })
		.where('id', '=', runId)
		.execute()
	const problems: Problem[] = []
	try {
		const access = await loadEmailBisonAccess(run.user_id)
		if (!access) return await finish(db, runId, NOT_CONFIGURED, problems)
		const targets = await superAdminClient(access, options).listWorkspaces()
		await db
			.updateTable('dnc_sync_runs')
			.set({ targets: JSON.stringify(targets), updated_at: new Date() })
			.where('id', '=', runId)
			.execute()
		const links = await workspaceLinks(db, run.user_id)
		const scope: Scope = {
			accountWide: run.workspace_ids === null,
			workspaceIds: run.workspace_ids,
		}
		// failed ones are tried again by every run (a refusal may have been the instance's state)
		await db
			.deleteFrom('dnc_eb_sync')
			.where('user_id', '=', run.user_id)
			.where('status', '=', 'failed')
			.execute()
		await countTotal(db, runId, run.user_id, targets, links, scope)
		for (const target of targets) {
			job.signal.throwIfAborted()
			await inEbWorkspace(
				access,
				target.id,
				async (client) => {
					if (run.pull) await pull(db, run, client, target, problems)
					if (run.push) await push(db, run, client, target, links, scope, problems, job.signal)
				},
				options,
			)
		}
		await finish(db, runId, null, problems)
	} catch (error) {
		const retryable =
			(error instanceof EmailBisonError && error.retryable) ||
			job.signal.aborted ||
			isTransientDatabaseError(error) ||
			!(error instanceof EmailBisonError)
		if (error instanceof EmailBisonError && error.kind === 'rate-limited') throw error
		if (retryable && job.retryCount < SYNC_RETRY_LIMIT) {
			await saveProblems(db, runId, problems)
			throw error
		}
		if (!(error instanceof EmailBisonError)) logger.error({ err: error, runId }, 'dnc sync failed')
		await finish(
			db,
			runId,
			error instanceof EmailBisonError
				? `EmailBison: ${error.message}`
				: 'The sync stopped on an unexpected error; start it again.',
			problems,
		)
	}
}

/** Entries of the run's scope that go to this EmailBison workspace (SQL over do_not_contact d). */
function entriesFor(
	accountId: string,
	target: string,
	links: Map<string, Set<string>>,
	scope: Scope,
) {
	const linked = [...links].filter(([, ebs]) => ebs.has(target)).map(([ws]) => ws)
	const workspaces = scope.workspaceIds
		? linked.filter((w) => scope.workspaceIds!.includes(w))
		: linked
	return sql<boolean>`d.user_id = ${accountId}::uuid and (${
		scope.accountWide ? sql`d.workspace_id is null` : sql`false`
	} or d.workspace_id = any(${workspaces}::uuid[]))`
}

async function countTotal(
	db: Kysely<DB>,
	runId: string,
	accountId: string,
	targets: EbWorkspace[],
	links: Map<string, Set<string>>,
	scope: Scope,
) {
	let total = 0
	for (const target of targets) {
		const { rows } = await sql<{ n: number }>`
			select count(*)::int as n from do_not_contact d
			where ${entriesFor(accountId, String(target.id), links, scope)}
				and not exists (select 1 from dnc_eb_sync s
					where s.entry_id = d.id and s.eb_workspace_id = ${String(target.id)} and s.status = 'synced')
		`.execute(db)
		total += rows[0]?.n ?? 0
	}
	await db
		.updateTable('dnc_sync_runs')
		// a resumed run: what it sent before counts too
		.set({ total: sql`sent + ${total}`, updated_at: new Date() })
		.where('id', '=', runId)
		.execute()
}

type RunRow = { id: string; user_id: string; created_by: string | null }

async function push(
	db: Kysely<DB>,
	run: RunRow,
	client: EmailBisonClient,
	target: EbWorkspace,
	links: Map<string, Set<string>>,
	scope: Scope,
	problems: Problem[],
	signal: AbortSignal,
) {
	const eb = String(target.id)
	await reconcile(db, run, client, target, problems)
	const refused = new Set<string>()
	for (;;) {
		signal.throwIfAborted()
		// claim a batch and commit it before any call: a crash leaves them 'sending', never unsent
		const { rows: batch } = await sql<{ id: string; value: string; kind: string }>`
			with picked as (
				select d.id, d.value, d.kind from do_not_contact d
				where ${entriesFor(run.user_id, eb, links, scope)}
					and d.kind <> all(${[...refused]}::text[])
					and not exists (select 1 from dnc_eb_sync s
						where s.entry_id = d.id and s.eb_workspace_id = ${eb})
				order by d.id limit ${BATCH}
			), claimed as (
				insert into dnc_eb_sync (entry_id, eb_workspace_id, user_id, status, run_id)
				select id, ${eb}, ${run.user_id}::uuid, 'sending', ${run.id}::uuid from picked
				on conflict do nothing
				returning entry_id
			)
			select p.id, p.value, p.kind from picked p join claimed c on c.entry_id = p.id
		`.execute(db)
		if (batch.length === 0) return failRefused(db, run, eb, links, scope, refused, problems, target)
		const outcomes: { id: string; status: 'synced' | 'failed'; error: string | null }[] = []
		let stop: unknown = null
		for (let i = 0; i < batch.length && !stop; i += PARALLEL) {
			await Promise.all(
				batch.slice(i, i + PARALLEL).map(async (entry) => {
					if (refused.has(entry.kind)) return
					try {
						await (entry.kind === 'email'
							? client.addBlacklistedEmail(entry.value)
							: client.addBlacklistedDomain(entry.value))
						outcomes.push({ id: entry.id, status: 'synced', error: null })
					} catch (error) {
						if (error instanceof EmailBisonError && error.kind === 'invalid') {
							// on the blacklist already (the blacklist may be instance-wide): synced
							if (ALREADY_THERE.test(error.message))
								outcomes.push({ id: entry.id, status: 'synced', error: null })
							else outcomes.push({ id: entry.id, status: 'failed', error: error.message })
						} else if (unsupported(error)) {
							const what = entry.kind === 'email' ? 'blacklisted emails' : 'blacklisted domains'
							if (!refused.has(entry.kind))
								problems.push({ workspace: target.name, what, reason: unsupportedReason(error) })
							refused.add(entry.kind)
						} else stop ??= error
					}
				}),
			)
		}
		await settleBatch(db, run.id, eb, batch, outcomes, refused, problems, target)
		if (stop) throw stop
	}
}

/** Entries of a kind the workspace refused (no endpoint): each shows why it could not sync. */
async function failRefused(
	db: Kysely<DB>,
	run: RunRow,
	eb: string,
	links: Map<string, Set<string>>,
	scope: Scope,
	refused: Set<string>,
	problems: Problem[],
	target: EbWorkspace,
) {
	for (const kind of refused) {
		const what = kind === 'email' ? 'blacklisted emails' : 'blacklisted domains'
		const reason = problems.find((p) => p.workspace === target.name && p.what === what)?.reason
		const { numAffectedRows } = await sql`
			insert into dnc_eb_sync (entry_id, eb_workspace_id, user_id, status, error, run_id)
			select d.id, ${eb}, d.user_id, 'failed', ${`EmailBison took no ${kind}s: ${reason ?? 'not offered'}`}, ${run.id}::uuid
			from do_not_contact d
			where ${entriesFor(run.user_id, eb, links, scope)} and d.kind = ${kind}
			on conflict do nothing
		`.execute(db)
		await db
			.updateTable('dnc_sync_runs')
			.set((e) => ({ failed: e('failed', '+', Number(numAffectedRows ?? 0)) }))
			.where('id', '=', run.id)
			.execute()
	}
}

/** Writes a batch's outcomes; entries of a refused kind fail; the rest stay 'sending' (unsure). */
async function settleBatch(
	db: Kysely<DB>,
	runId: string,
	eb: string,
	batch: { id: string; kind: string }[],
	outcomes: { id: string; status: 'synced' | 'failed'; error: string | null }[],
	refused: Set<string>,
	problems: Problem[],
	target: EbWorkspace,
) {
	const done = new Set(outcomes.map((o) => o.id))
	for (const entry of batch)
		if (!done.has(entry.id) && refused.has(entry.kind)) {
			const problem = problems.find(
				(p) =>
					p.workspace === target.name &&
					p.what === (entry.kind === 'email' ? 'blacklisted emails' : 'blacklisted domains'),
			)
			outcomes.push({
				id: entry.id,
				status: 'failed',
				error: `EmailBison took no ${entry.kind === 'email' ? 'emails' : 'domains'}: ${problem?.reason ?? 'not offered'}`,
			})
		}
	await db.transaction().execute(async (trx) => {
		for (const status of ['synced', 'failed'] as const) {
			const mine = outcomes.filter((o) => o.status === status)
			if (mine.length === 0) continue
			await sql`
				update dnc_eb_sync s set status = ${status}, error = o.error, updated_at = now()
				from unnest(${mine.map((o) => o.id)}::uuid[], ${mine.map((o) => o.error)}::text[]) as o(id, error)
				where s.entry_id = o.id and s.eb_workspace_id = ${eb}
			`.execute(trx)
		}
		const synced = outcomes.filter((o) => o.status === 'synced').length
		const failed = outcomes.length - synced
		await trx
			.updateTable('dnc_sync_runs')
			.set((e) => ({
				sent: e('sent', '+', synced),
				failed: e('failed', '+', failed),
				problems: JSON.stringify(problems),
				updated_at: new Date(),
			}))
			.where('id', '=', runId)
			.execute()
	})
}

/**
 * 'sending' rows of this EmailBison workspace (a killed worker's, this run's or a dead run's):
 * what EmailBison's blacklist has is synced, the rest is unclaimed to be sent now. When the
 * blacklist cannot be read, they are unclaimed too (a second POST of a value already there
 * answers "already taken", which counts as synced).
 */
async function reconcile(
	db: Kysely<DB>,
	run: RunRow,
	client: EmailBisonClient,
	target: EbWorkspace,
	problems: Problem[],
) {
	const eb = String(target.id)
	const unsure = await db
		.selectFrom('dnc_eb_sync as s')
		.innerJoin('do_not_contact as d', 'd.id', 's.entry_id')
		.select(['s.entry_id', 'd.value', 'd.kind'])
		.where('s.user_id', '=', run.user_id)
		.where('s.eb_workspace_id', '=', eb)
		.where('s.status', '=', 'sending')
		.execute()
	if (unsure.length === 0) return
	const there = new Set<string>()
	for (const kind of ['email', 'domain'] as const) {
		if (!unsure.some((u) => u.kind === kind)) continue
		try {
			const values =
				kind === 'email'
					? await client.listBlacklistedEmails()
					: await client.listBlacklistedDomains()
			for (const v of values) there.add(v.trim().toLowerCase())
		} catch (error) {
			if (!unsupported(error)) throw error
			problems.push({
				workspace: target.name,
				what: `checking blacklisted ${kind}s after an interruption`,
				reason: unsupportedReason(error),
			})
		}
	}
	const synced = unsure.filter((u) => there.has(u.value)).map((u) => u.entry_id)
	const again = unsure.filter((u) => !there.has(u.value)).map((u) => u.entry_id)
	await db.transaction().execute(async (trx) => {
		if (synced.length)
			await trx
				.updateTable('dnc_eb_sync')
				.set({ status: 'synced', run_id: run.id, updated_at: new Date() })
				.where('eb_workspace_id', '=', eb)
				.where('entry_id', 'in', synced)
				.execute()
		if (again.length)
			await trx
				.deleteFrom('dnc_eb_sync')
				.where('eb_workspace_id', '=', eb)
				.where('entry_id', 'in', again)
				.where('status', '=', 'sending')
				.execute()
		if (synced.length)
			await trx
				.updateTable('dnc_sync_runs')
				.set((e) => ({ sent: e('sent', '+', synced.length), updated_at: new Date() }))
				.where('id', '=', run.id)
				.execute()
	})
}

/**
 * EmailBison's blacklisted emails and domains and its unsubscribed leads (an UNCONFIRMED
 * listing, probed) as account-wide entries "Imported from EmailBison", marked synced for the
 * workspace they came from. A part EmailBison does not offer is a problem named on the page.
 */
async function pull(
	db: Kysely<DB>,
	run: RunRow,
	client: EmailBisonClient,
	target: EbWorkspace,
	problems: Problem[],
) {
	const parts = [
		{ what: 'blacklisted emails', list: () => client.listBlacklistedEmails() },
		{ what: 'blacklisted domains', list: () => client.listBlacklistedDomains() },
		{ what: 'unsubscribed leads', list: () => client.listUnsubscribedLeads() },
	]
	for (const part of parts) {
		let values: string[]
		try {
			values = await part.list()
		} catch (error) {
			if (!(error instanceof EmailBisonError)) throw error
			if (error.retryable && !unsupported(error)) throw error
			problems.push({
				workspace: target.name,
				what: `bringing in ${part.what}`,
				reason: unsupported(error) ? unsupportedReason(error) : error.message,
			})
			continue
		}
		const parsed = [
			...new Set(
				values.flatMap((v) => {
					const p = parseEntry(v)
					return p.ok ? [p.value] : []
				}),
			),
		]
		for (let i = 0; i < parsed.length; i += 5000) {
			const chunk = parsed.slice(i, i + 5000)
			const { rows } = await sql<{ n: number }>`
				with added as (
					insert into do_not_contact (user_id, workspace_id, value, reason, added_by)
					select ${run.user_id}::uuid, null, v, 'emailbison', ${run.created_by}::uuid
					from unnest(${chunk}::text[]) v
					on conflict do nothing
					returning id
				), known as (
					select d.id from do_not_contact d
					where d.user_id = ${run.user_id}::uuid and d.workspace_id is null and d.value = any(${chunk}::text[])
					union select id from added
				), marked as (
					insert into dnc_eb_sync (entry_id, eb_workspace_id, user_id, status, run_id)
					select id, ${String(target.id)}, ${run.user_id}::uuid, 'synced', ${run.id}::uuid from known
					on conflict (entry_id, eb_workspace_id) do update set status = 'synced', error = null
					returning 1
				)
				select (select count(*) from added)::int as n, (select count(*) from marked) as m
			`.execute(db)
			await db
				.updateTable('dnc_sync_runs')
				.set((e) => ({ pulled: e('pulled', '+', rows[0]?.n ?? 0), updated_at: new Date() }))
				.where('id', '=', run.id)
				.execute()
		}
	}
	await saveProblems(db, run.id, problems)
}

async function saveProblems(db: Kysely<DB>, runId: string, problems: Problem[]) {
	await db
		.updateTable('dnc_sync_runs')
		.set({ problems: JSON.stringify(problems), updated_at: new Date() })
		.where('id', '=', runId)
		.execute()
}

async function finish(db: Kysely<DB>, runId: string, error: string | null, problems: Problem[]) {
	await db
		.updateTable('dnc_sync_runs')
		.set({
			status: error ? 'failed' : 'done',
			error,
			problems: JSON.stringify(problems),
			finished_at: new Date(),
			updated_at: new Date(),
		})
		.where('id', '=', runId)
		.where('status', 'in', ['queued', 'running'])
		.execute()
}

/** The sweep's runs whose job pg-boss will not run again (decision 0062). */
export async function unfinishedDncSyncs(quietSeconds: number) {
	const rows = await defaultDb
		.selectFrom('dnc_sync_runs as r')
		.select('r.id')
		.where('r.status', 'in', ['queued', 'running'])
		.where(quietFor('r.updated_at', quietSeconds))
		.where(withoutLiveJob('dnc-sync', sql`jsonb_build_object('runId', r.id)`))
		.execute()
	return rows.map((r) => ({ runId: r.id }))
}

/** Ends a run whose job is gone as failed (what it synced stays synced). */
export async function settleEndedDncSync(runId: string) {
	return defaultDb.transaction().execute(async (trx) => {
		const locked = await trx
			.selectFrom('dnc_sync_runs')
			.select(['status', 'problems'])
			.where('id', '=', runId)
			.forUpdate()
			.executeTakeFirst()
		if (locked?.status !== 'queued' && locked?.status !== 'running') return false
		const job = await endedJob(trx, 'dnc-sync', { runId })
		if (!job) return false
		await finish(
			trx,
			runId,
			`Stopped. ${whyEnded(job)} What was synced stays synced; start it again for the rest.`,
			locked.problems as Problem[],
		)
		return true
	})
}
