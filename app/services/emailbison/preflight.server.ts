import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import { LEAD_COLUMNS, type UploadMapping } from './mapping.ts'
import { REQUIRED_FIELDS } from './schemas.ts'

/** Leads counted before an upload; a bigger list is judged on its first this many. */
export const PREFLIGHT_LEADS = 100_000

export type Preflight = {
	/** leads the upload would send (those with an email), up to PREFLIGHT_LEADS */
	leads: number
	/** true when the list has more leads than were counted */
	partial: boolean
	/** per source (a lead column or `data:<key>`): how many of those leads have it empty */
	empty: Record<string, number>
}

/**
 * For every source the upload form offers, how many of the leads an upload would send have
 * nothing there: the form warns before the upload when a field EmailBison requires would be
 * empty for some leads (EmailBison rejects them). One pass over at most PREFLIGHT_LEADS leads.
 */
export async function preflightCounts(listId: string, dataKeys: string[]): Promise<Preflight> {
	const sources = [
		...LEAD_COLUMNS.map(([column]) => ({
			source: column as string,
			value: sql`${sql.ref(column)}::text`,
		})),
		...dataKeys.map((key) => ({ source: `data:${key}`, value: sql`data ->> ${key}` })),
	]
	const counts = sources.map(
		(s, i) =>
			sql`count(*) filter (where coalesce(trim(${s.value}), '') = '')::int as ${sql.ref(`e${i}`)}`,
	)
	const { rows } = await sql<Record<string, number>>`
		select count(*)::int as leads, ${sql.join(counts)}
		from (
			select * from leads
			where list_id = ${listId} and coalesce(trim(email), '') <> ''
			limit ${PREFLIGHT_LEADS + 1}
		) l
	`.execute(db)
	const row = rows[0] ?? { leads: 0 }
	const partial = (row.leads ?? 0) > PREFLIGHT_LEADS
	const empty: Record<string, number> = {}
	sources.forEach((s, i) => (empty[s.source] = Number(row[`e${i}`] ?? 0)))
	return { leads: Math.min(row.leads ?? 0, PREFLIGHT_LEADS), partial, empty }
}

/** The required fields a mapping leaves empty for some leads, with how many. */
export function missingRequired(preflight: Preflight, fields: UploadMapping['fields']) {
	return REQUIRED_FIELDS.map((field) => {
		const source = fields[field]
		const leads = source ? (preflight.empty[source] ?? preflight.leads) : preflight.leads
		return { field, source: source ?? '', leads }
	}).filter((m) => m.leads > 0)
}
