import { sql, type RawBuilder } from 'kysely'
import { db } from '../../../db/index.server.ts'

/**
 * Suppression is computed where a lead is used, never stored on it (decision 0092): a lead is
 * suppressed while an entry of its account, account-wide or of its list's workspace, has as
 * its value the lead's normalised email (trimmed, lower case), its domain, or a parent domain
 * of at least two labels (a.b.example.com: b.example.com, example.com).
 *
 * Written as two plain conditions PostgreSQL turns into set operations (hash anti/semi joins
 * of the list's leads against the entries): the exact value, and a domain entry sharing the
 * lead's domain's last two labels (do_not_contact_domain_idx) that is the domain or a suffix of
 * it at a dot. No function per lead: the old dnc_keys() call cost ~80 µs a lead (decision 0092).
 *
 * `email` and `workspaceId` are SQL expressions of the lead's row (e.g. sql.ref('l.email')).
 */
type Operand = string | null | RawBuilder<unknown>

const normalised = (email: RawBuilder<unknown>) => sql`lower(btrim(${email}))`
const domainOf = (email: RawBuilder<unknown>) => sql`split_part(lower(btrim(${email})), '@', 2)`
// spelled as in do_not_contact_domain_idx (migration 2026-11-28T0510) so the index serves it
const lastTwoLabels = (domain: RawBuilder<unknown>) =>
	sql`split_part(${domain}, '.', -2) || '.' || split_part(${domain}, '.', -1)`

function inScope(accountId: Operand, workspaceId: Operand) {
	return sql`dnc.user_id = ${accountId}::uuid
		and (dnc.workspace_id is null or dnc.workspace_id = ${workspaceId}::uuid)`
}

/** The entry's value is the lead's domain, or a parent of it (a suffix at a dot, with a dot). */
function domainMatches(email: RawBuilder<unknown>) {
	const domain = domainOf(email)
	return sql`dnc.kind = 'domain'
		and ${lastTwoLabels(sql.ref('dnc.value'))} = ${lastTwoLabels(domain)}
		and (dnc.value = ${domain} or (dnc.value like '%.%'
			and right(${domain}, length(dnc.value) + 1) = '.' || dnc.value))`
}

function exactEntry(accountId: Operand, email: RawBuilder<unknown>, workspaceId: Operand) {
	return sql<boolean>`exists (select 1 from do_not_contact dnc
		where ${inScope(accountId, workspaceId)} and dnc.value = ${normalised(email)})`
}

function domainEntry(accountId: Operand, email: RawBuilder<unknown>, workspaceId: Operand) {
	return sql<boolean>`exists (select 1 from do_not_contact dnc
		where ${inScope(accountId, workspaceId)} and ${domainMatches(email)})`
}

export function suppressedSql(
	accountId: string | RawBuilder<unknown>,
	email: RawBuilder<unknown>,
	workspaceId: string | null | RawBuilder<unknown>,
) {
	return sql<boolean>`(${exactEntry(accountId, email, workspaceId)} or ${domainEntry(accountId, email, workspaceId)})`
}

/** Not suppressed, as two `not exists` the planner makes anti joins (an OR would stay per row). */
export function notSuppressedSql(
	accountId: string | RawBuilder<unknown>,
	email: RawBuilder<unknown>,
	workspaceId: string | null | RawBuilder<unknown>,
) {
	return sql<boolean>`(not ${exactEntry(accountId, email, workspaceId)} and not ${domainEntry(accountId, email, workspaceId)})`
}

/** The entry that suppresses a lead (most specific first: the email, then the longest domain). */
export function matchingEntrySql(
	accountId: string | RawBuilder<unknown>,
	email: RawBuilder<unknown>,
	workspaceId: string | null | RawBuilder<unknown>,
) {
	return sql<string | null>`(
		select dnc.value || ' (' || dnc.reason || ')' from do_not_contact dnc
		where ${inScope(accountId, workspaceId)}
			and (dnc.value = ${normalised(email)} or (${domainMatches(email)}))
		order by dnc.kind = 'email' desc, length(dnc.value) desc limit 1
	)`
}

/**
 * How many leads of a list a do-not-contact entry suppresses (for reports and the list page).
 * Shown on every load of a finished list: nothing to count without entries (one index probe),
 * and otherwise the list less its unsuppressed leads, which the planner counts as anti joins
 * rather than probing each lead (decision 0092).
 */
export async function countSuppressed(listId: string) {
	const { rows } = await sql<{ n: number }>`
		select case
			when not exists (select 1 from do_not_contact d where d.user_id = p.user_id) then 0
			else (select count(*) from leads l where l.list_id = p.id)
				- (select count(*) from leads l where l.list_id = p.id
					and ${notSuppressedSql(sql.ref('p.user_id'), sql.ref('l.email'), sql.ref('p.workspace_id'))})
		end::int as n
		from processing_list p where p.id = ${listId}
	`.execute(db)
	return rows[0]?.n ?? 0
}

/**
 * A lead already sent to this EmailBison workspace by an earlier upload of the account (from
 * any list), by normalised email.
 */
export function alreadyUploadedSql(
	accountId: string,
	ebWorkspaceId: string,
	email: RawBuilder<unknown>,
	exceptUploadId?: string,
) {
	return sql<boolean>`exists (
		select 1 from emailbison_upload_leads eul
		join emailbison_upload eu on eu.id = eul.upload_id
		where lower(btrim(eul.email)) = lower(btrim(${email})) and eul.eb_lead_id is not null
			and eu.user_id = ${accountId}::uuid and eu.eb_workspace_id = ${ebWorkspaceId}
			${exceptUploadId ? sql`and eu.id <> ${exceptUploadId}::uuid` : sql``}
	)`
}

/**
 * The upload form's counts as one statement of set operations (no probe per lead): the
 * suppressed are the list's leads less its unsuppressed ones (two anti joins, as
 * countSuppressed), nothing to count when the account has no entry; the duplicates a semi join
 * of the list's normalised emails against the account's earlier sent leads in the workspace.
 */
export function uploadExclusionsQuery(
	accountId: string,
	listId: string,
	workspaceId: string | null,
	ebWorkspaceId: string,
) {
	const listLeads = sql`from leads l where l.list_id = ${listId}::uuid and coalesce(trim(l.email), '') <> ''`
	return sql<{ suppressed: number; duplicates: number }>`
		select
			case when not exists (select 1 from do_not_contact d where d.user_id = ${accountId}::uuid) then 0
				else (select count(*) ${listLeads})
					- (select count(*) ${listLeads}
						and ${notSuppressedSql(accountId, sql.ref('l.email'), workspaceId)})
			end::int as suppressed,
			(select count(*) ${listLeads} and lower(btrim(l.email)) in (
				select lower(btrim(eul.email)) from emailbison_upload_leads eul
				join emailbison_upload eu on eu.id = eul.upload_id
				where eul.eb_lead_id is not null and eu.user_id = ${accountId}::uuid
					and eu.eb_workspace_id = ${ebWorkspaceId}
			))::int as duplicates
	`
}

/** The upload form's counts: leads of the list suppressed, and already in the EB workspace. */
export async function uploadExclusions(
	accountId: string,
	listId: string,
	workspaceId: string | null,
	ebWorkspaceId: string,
) {
	const { rows } = await uploadExclusionsQuery(
		accountId,
		listId,
		workspaceId,
		ebWorkspaceId,
	).execute(db)
	return rows[0] ?? { suppressed: 0, duplicates: 0 }
}

/** `leads` (unaliased) of a list not suppressed: the list's workspace is read in the statement. */
export function notSuppressedInList(accountId: string, listId: string) {
	return sql<boolean>`${notSuppressedSql(
		accountId,
		sql.ref('leads.email'),
		sql`(select workspace_id from processing_list where id = ${listId}::uuid)`,
	)}`
}

/** `leads` (unaliased) of a list that an entry suppresses: the list page's filter. */
export function suppressedInList(listId: string) {
	return sql<boolean>`${suppressedSql(
		sql`(select user_id from processing_list where id = ${listId}::uuid)`,
		sql.ref('leads.email'),
		sql`(select workspace_id from processing_list where id = ${listId}::uuid)`,
	)}`
}

/** A page of a list's leads with the entry that suppresses each (one statement for the page). */
export async function withSuppression<T extends { id: string }>(listId: string, rows: T[]) {
	if (rows.length === 0) return rows.map((r) => ({ ...r, suppressed_by: null }))
	const { rows: found } = await sql<{ id: string; entry: string | null }>`
		select l.id, ${matchingEntrySql(sql.ref('p.user_id'), sql.ref('l.email'), sql.ref('p.workspace_id'))} as entry
		from leads l join processing_list p on p.id = l.list_id
		where l.list_id = ${listId} and l.id = any(${rows.map((r) => r.id)}::uuid[])
	`.execute(db)
	const byId = new Map(found.map((r) => [r.id, r.entry]))
	return rows.map((r) => ({ ...r, suppressed_by: byId.get(r.id) ?? null }))
}
