import { sql, type RawBuilder } from 'kysely'
import { db } from '../../../db/index.server.ts'

/**
 * Suppression is computed where a lead is used, never stored on it (decision 0092): a lead is
 * suppressed while an entry of its account, account-wide or of its list's workspace, has one
 * of the lead's keys (dnc_keys: the normalised email, its domain and parent domains) as its
 * value. One index probe per key on do_not_contact (user_id, value, ...): a set operation in
 * PostgreSQL, right the moment an entry is added or removed.
 *
 * `email` and `workspaceId` are SQL expressions of the lead's row (e.g. sql.ref('l.email')).
 */
export function suppressedSql(
	accountId: string | RawBuilder<unknown>,
	email: RawBuilder<unknown>,
	workspaceId: string | null | RawBuilder<unknown>,
) {
	return sql<boolean>`exists (
		select 1 from do_not_contact dnc
		where dnc.user_id = ${accountId}::uuid and dnc.value = any(dnc_keys(${email}))
			and (dnc.workspace_id is null or dnc.workspace_id = ${workspaceId}::uuid)
	)`
}

/** The entry that suppresses a lead (most specific first: the email, then the longest domain). */
export function matchingEntrySql(
	accountId: string | RawBuilder<unknown>,
	email: RawBuilder<unknown>,
	workspaceId: string | null | RawBuilder<unknown>,
) {
	return sql<string | null>`(
		select dnc.value || ' (' || dnc.reason || ')' from do_not_contact dnc
		where dnc.user_id = ${accountId}::uuid and dnc.value = any(dnc_keys(${email}))
			and (dnc.workspace_id is null or dnc.workspace_id = ${workspaceId}::uuid)
		order by dnc.kind = 'email' desc, length(dnc.value) desc limit 1
	)`
}

/** How many leads of a list a do-not-contact entry suppresses (for reports). */
export async function countSuppressed(listId: string) {
	const { rows } = await sql<{ n: number }>`
		select count(*)::int as n from leads l
		join processing_list p on p.id = l.list_id
		where l.list_id = ${listId}
			and ${suppressedSql(sql.ref('p.user_id'), sql.ref('l.email'), sql.ref('p.workspace_id'))}
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

/** The upload form's counts: leads of the list suppressed, and already in the EB workspace. */
export async function uploadExclusions(
	accountId: string,
	listId: string,
	workspaceId: string | null,
	ebWorkspaceId: string,
) {
	const { rows } = await sql<{ suppressed: number; duplicates: number }>`
		select
			count(*) filter (where ${suppressedSql(accountId, sql.ref('l.email'), workspaceId)})::int as suppressed,
			count(*) filter (where ${alreadyUploadedSql(accountId, ebWorkspaceId, sql.ref('l.email'))})::int as duplicates
		from leads l
		where l.list_id = ${listId} and coalesce(trim(l.email), '') <> ''
	`.execute(db)
	return rows[0] ?? { suppressed: 0, duplicates: 0 }
}

/** `leads` (unaliased) of a list not suppressed: the list's workspace is read in the statement. */
export function notSuppressedInList(accountId: string, listId: string) {
	return sql<boolean>`not ${suppressedSql(
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
