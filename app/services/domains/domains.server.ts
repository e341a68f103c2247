import { domainToUnicode } from 'node:url'
import { sql, type ExpressionBuilder, type Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { checkDomainEntries } from '../../utils/domains.ts'
import type { TableSort } from '../../utils/table-sort.ts'
import { FormError, isUuid, notFound } from '../../utils/http-errors.server.ts'
import { healthOrder } from '../domain-health/order.server.ts'
import type { ActingAccount } from '../workspaces/access.server.ts'
import { assertWorkspace, domainAccount } from './access.server.ts'
import { appHostNames, isAppHost } from './app-hosts.server.ts'
import { queueDnsChecks, runDnsChecks } from './dns-check.server.ts'

export const MAX_IMPORT = 1000

/** Domains of the account in the workspaces the user may use (no workspace: full access only). */
export function visibleDomains(account: ActingAccount) {
	const ids = account.workspaces.map((w) => w.id)
	return (eb: ExpressionBuilder<DB, 'domains'>) =>
		eb.and([
			eb('domains.user_id', '=', account.accountId),
			eb.or([
				...(ids.length ? [eb('domains.workspace_id', 'in', ids)] : []),
				...(account.accessAllWorkspaces ? [eb('domains.workspace_id', 'is', null)] : []),
				eb.val(false),
			]),
		])
}

export type DnsResult = {
	mx: string[]
	spf: string | null
	dmarc: string | null
	forwarding: { ok: boolean; found: string[] }
	/** the verification TXT record was found (checks since issue 14) */
	verification?: { ok: boolean }
	errors: string[]
	pending?: boolean
}

/** A stored (punycode) name as people read it: Unicode. */
export function unicodeName(name: string) {
	return domainToUnicode(name) || name
}

export const DOMAIN_SORTS = [
	'name',
	'workspace',
	'subscription',
	'checked',
	'added',
	'grade',
] as const
export type DomainSort = TableSort<(typeof DOMAIN_SORTS)[number]>

/** For a query over `domains`: names containing `q` (the table's filter; bulk "all matching" too). */
export function domainFilter(q: string | undefined) {
	const text = q?.trim().toLowerCase()
	return (eb: ExpressionBuilder<DB, 'domains'>) =>
		text ? eb('domains.name', 'like', `%${text.replace(/[\\%_]/g, '\\$&')}%`) : eb.val(true)
}

/** The account's domains with their live subscription, newest first (or as `sort` says). */
export async function listDomains(
	account: AccountContext | null,
	db: Kysely<DB> = defaultDb,
	options: { q?: string; sort?: DomainSort; limit?: number; offset?: number } = {},
) {
	const acting = domainAccount(account, 'view')
	const { sort = 'added', dir = 'desc' } = options.sort ?? {}
	const column = {
		name: 'domains.name',
		workspace: 'workspaces.name',
		subscription: 'subscribed_until',
		checked: 'domains.dns_checked_at',
		added: 'domains.created_at',
	} as const
	// by health: the domain-health service's order (its table, its ranking)
	const order =
		sort === 'grade'
			? healthOrder(dir)
			: [
					sql`${sql.ref(column[sort])} ${sql.raw(dir === 'asc' ? 'asc nulls first' : 'desc nulls last')}`,
				]
	const rows = await db
		.selectFrom('domains')
		.leftJoin('workspaces', 'workspaces.id', 'domains.workspace_id')
		.select((eb) => [
			'domains.id',
			'domains.name',
			'domains.status',
			'domains.source',
			'domains.workspace_id',
			'workspaces.name as workspace_name',
			'domains.forward_to',
			'domains.redirect_code',
			'domains.forward_keep_path',
			'domains.dns',
			'domains.dns_checked_at',
			'domains.verification_token',
			'domains.verified_at',
			'domains.created_at',
			eb
				.selectFrom('domain_subscriptions as s')
				.select('s.expire_date')
				.whereRef('s.domain_id', '=', 'domains.id')
				.where('s.status', 'in', ['active', 'past_due'])
				.where('s.expire_date', '>', new Date())
				.limit(1)
				.as('subscribed_until'),
		])
		.where(visibleDomains(acting))
		.where(domainFilter(options.q))
		.$call((q) => order.reduce((sorted, by) => sorted.orderBy(by), q))
		.orderBy('domains.name')
		.$if(options.limit !== undefined, (q) => q.limit(options.limit!).offset(options.offset ?? 0))
		.execute()
	return rows.map((row) => ({ ...row, dns: row.dns as DnsResult | null }))
}

/** How many of the account's domains the user sees match the filter (every page). */
export async function countDomains(
	account: AccountContext | null,
	q: string | undefined,
	db: Kysely<DB> = defaultDb,
) {
	const acting = domainAccount(account, 'view')
	const row = await db
		.selectFrom('domains')
		.select((eb) => eb.fn.countAll<string>().as('n'))
		.where(visibleDomains(acting))
		.where(domainFilter(q))
		.executeTakeFirstOrThrow()
	return Number(row.n)
}

/** One domain of the account the user may see; another account's (or a bad id) is 404. */
export async function findDomain(
	account: ActingAccount,
	id: string,
	db: Kysely<DB> = defaultDb,
	options: { forUpdate?: boolean } = {},
) {
	if (!isUuid(id)) notFound('This domain')
	let query = db
		.selectFrom('domains')
		.selectAll()
		.where('id', '=', id)
		.where(visibleDomains(account))
	if (options.forUpdate) query = query.forUpdate()
	const row = await query.executeTakeFirst()
	if (!row) notFound('This domain')
	return row
}

/** Whether the domain has a paid, unexpired subscription (forwarding and inbox orders need one). */
/** Statuses of a domain subscription that still pays for its domain (until its expire date). */
export const LIVE_SUBSCRIPTION_STATUSES = ['active', 'past_due']

/** For a query over `domains`: the domain has a subscription that pays for it at `now`. */
export function paidFor(eb: ExpressionBuilder<DB, 'domains'>, now = new Date()) {
	return eb.exists(
		eb
			.selectFrom('domain_subscriptions as s')
			.select('s.id')
			.whereRef('s.domain_id', '=', 'domains.id')
			.where('s.status', 'in', LIVE_SUBSCRIPTION_STATUSES)
			.where('s.expire_date', '>', now),
	)
}

export async function hasLiveSubscription(db: Kysely<DB>, domainId: string, now = new Date()) {
	const row = await db
		.selectFrom('domain_subscriptions')
		.select('id')
		.where('domain_id', '=', domainId)
		.where('status', 'in', LIVE_SUBSCRIPTION_STATUSES)
		.where('expire_date', '>', now)
		.executeTakeFirst()
	return Boolean(row)
}

export type ImportLine = {
	line: number
	value: string
	domain: string | null
	result: 'added' | 'duplicate' | 'invalid'
	reason: string | null
}

/**
 * Imports pasted (or uploaded) domains into a workspace: every entry gets a result: added,
 * duplicate (in the input or in this account) or invalid with its reason. A name another account
 * holds is added too (the answer must not tell which domains exist here): whichever account proves
 * control through DNS forwards it (verifyDomains). The app's own hosts are refused. Added domains
 * get a DNS check queued in the same transaction.
 */
export async function importDomains(
	account: AccountContext | null,
	input: { text: string; workspaceId: string | null },
	db: Kysely<DB> = defaultDb,
): Promise<{ lines: ImportLine[]; added: number }> {
	const acting = domainAccount(account, 'change')
	assertWorkspace(acting, input.workspaceId)
	const entries = checkDomainEntries(input.text)
	if (entries.length === 0) throw new FormError('Paste at least one domain.', 'domains')
	if (entries.length > MAX_IMPORT) {
		throw new FormError(`Import at most ${MAX_IMPORT} domains at a time.`, 'domains')
	}
	const ownHosts = appHostNames()
	const wanted = entries
		.filter((e) => e.status === 'valid' && !isAppHost(e.domain!, ownHosts))
		.map((e) => e.domain!)
	return db.transaction().execute(async (trx) => {
		const taken = wanted.length
			? await trx
					.selectFrom('domains')
					.select('name')
					.where('user_id', '=', acting.accountId)
					.where('name', 'in', wanted)
					.execute()
			: []
		const mine = new Set(taken.map((t) => t.name))
		const toInsert = wanted.filter((d) => !mine.has(d))
		const inserted = toInsert.length
			? await trx
					.insertInto('domains')
					.values(
						toInsert.map((name) => ({
							user_id: acting.accountId,
							workspace_id: input.workspaceId,
							name,
							source: 'imported',
							dns: JSON.stringify({ pending: true }),
						})),
					)
					.onConflict((oc) => oc.columns(['user_id', 'name']).doNothing())
					.returning(['id', 'name'])
					.execute()
			: []
		const added = new Set(inserted.map((r) => r.name))
		if (inserted.length)
			await queueDnsChecks(
				trx,
				inserted.map((r) => r.id),
			)
		const lines = entries.map((entry): ImportLine => {
			const base = { line: entry.line, value: entry.value, domain: entry.domain }
			if (entry.status === 'invalid') return { ...base, result: 'invalid', reason: entry.reason }
			if (entry.status === 'duplicate')
				return { ...base, result: 'duplicate', reason: entry.reason }
			const name = entry.domain!
			if (isAppHost(name, ownHosts))
				return { ...base, result: 'invalid', reason: 'this is the app’s own address' }
			if (added.has(name)) return { ...base, result: 'added', reason: null }
			return { ...base, result: 'duplicate', reason: 'already in your account' }
		})
		return { lines, added: inserted.length }
	})
}

/** Queues a fresh DNS check of domains the user may change. */
export async function requestDnsCheck(
	account: AccountContext | null,
	domainIds: string[] | 'all',
	db: Kysely<DB> = defaultDb,
) {
	const acting = domainAccount(account, 'change')
	return db.transaction().execute(async (trx) => {
		let query = trx.selectFrom('domains').select('id').where(visibleDomains(acting))
		if (domainIds !== 'all') {
			if (!domainIds.every(isUuid) || domainIds.length === 0) notFound('This domain')
			query = query.where('id', 'in', domainIds)
		}
		const rows = await query.limit(MAX_IMPORT).execute()
		if (domainIds !== 'all' && rows.length !== domainIds.length) notFound('This domain')
		if (rows.length)
			await queueDnsChecks(
				trx,
				rows.map((r) => r.id),
			)
		return rows.length
	})
}

/**
 * "Check now": checks one domain's DNS at once (not through the job), so its owner sees at once
 * whether the verification record was found. Returns the domain as stored after the check.
 */
export async function checkDomainNow(
	account: AccountContext | null,
	domainId: string,
	db: Kysely<DB> = defaultDb,
) {
	const acting = domainAccount(account, 'change')
	const domain = await findDomain(acting, domainId, db)
	await runDnsChecks([domain.id], db)
	const row = await findDomain(acting, domain.id, db)
	return { ...row, dns: row.dns as DnsResult | null }
}
