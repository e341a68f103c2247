import { db } from '../../../db/index.server.ts'
import { isUuid } from '../../utils/http-errors.server.ts'

/** What a ledger row was for, as the user knows it, and where to see it (when it still exists). */
export type LedgerSubject = { label: string; href: string | null }

type Parsed =
	| { kind: 'enrich' | 'lead-scrape' | 'company-scrape'; id: string; attempt: number }
	| { kind: 'checkout' | 'subscription' | 'verify'; id: string }

// References the jobs and payments write (run-enrichment, run-lead-scrape,
// run-company-scrape, checkout, subscriptions): `<kind>:<uuid>[:<attempt>]`.
function parse(reference: string | null): Parsed | null {
	const match =
		/^(enrich|lead-scrape|company-scrape|checkout|subscription|verify):([^:]+)(?::(\d+))?$/.exec(
			reference ?? '',
		)
	if (!match || !isUuid(match[2])) return null
	const kind = match[1] as Parsed['kind']
	if (kind === 'checkout' || kind === 'subscription' || kind === 'verify')
		return { kind, id: match[2] }
	return { kind, id: match[2], attempt: Number(match[3] ?? 1) }
}

const retry = (attempt: number) => (attempt > 1 ? ` (retry ${attempt - 1})` : '')

/**
 * The subjects of these ledger references: an enrichment run by its name and list, a lead or
 * company search by its list's name, each linked; a payment in words. Unknown or deleted
 * ones get a plain label. Only the account's own rows are read.
 */
export async function ledgerSubjects(
	accountId: string,
	references: readonly (string | null)[],
): Promise<Map<string, LedgerSubject>> {
	const parsed = new Map<string, Parsed>()
	for (const reference of references) {
		const p = parse(reference)
		if (p && reference) parsed.set(reference, p)
	}
	const idsOf = (kind: Parsed['kind']) => [
		...new Set([...parsed.values()].filter((p) => p.kind === kind).map((p) => p.id)),
	]
	const [runs, searches, companyLists, verifications] = await Promise.all([
		idsOf('enrich').length
			? db
					.selectFrom('enrichment_runs as r')
					.leftJoin('processing_list as l', 'l.id', 'r.list_id')
					.leftJoin('company_scraping_list as c', 'c.id', 'r.company_list_id')
					.select(['r.id', 'r.name', 'r.list_id', 'r.company_list_id', 'l.name as list_name'])
					.select('c.name as company_list_name')
					.where('r.user_id', '=', accountId)
					.where('r.id', 'in', idsOf('enrich'))
					.execute()
			: [],
		idsOf('lead-scrape').length
			? db
					.selectFrom('apollo_requests as a')
					.leftJoin('processing_list as l', 'l.id', 'a.list_id')
					.select(['a.id', 'a.list_id', 'l.name as list_name'])
					.where('a.user_id', '=', accountId)
					.where('a.id', 'in', idsOf('lead-scrape'))
					.execute()
			: [],
		idsOf('company-scrape').length
			? db
					.selectFrom('company_scraping_list')
					.select(['id', 'name'])
					.where('user_id', '=', accountId)
					.where('id', 'in', idsOf('company-scrape'))
					.execute()
			: [],
		idsOf('verify').length
			? db
					.selectFrom('verification_runs as v')
					.innerJoin('processing_list as l', 'l.id', 'v.list_id')
					.select(['v.id', 'v.list_id', 'l.name'])
					.where('v.user_id', '=', accountId)
					.where('v.id', 'in', idsOf('verify'))
					.execute()
			: [],
	])
	const subjects = new Map<string, LedgerSubject>()
	for (const [reference, p] of parsed) {
		if (p.kind === 'checkout') subjects.set(reference, { label: 'Checkout payment', href: null })
		else if (p.kind === 'verify') {
			// a verification is charged for its definitive answers (valid, invalid, disposable)
			const run = verifications.find((v) => v.id === p.id)
			subjects.set(
				reference,
				run
					? {
							label: `Email verification of “${run.name}” (valid, invalid and disposable answers)`,
							href: `/lists/${run.list_id}/verify`,
						}
					: { label: 'Email verification (list deleted)', href: null },
			)
		} else if (p.kind === 'subscription')
			subjects.set(reference, { label: 'Subscription', href: '/subscription' })
		else if (p.kind === 'enrich') {
			const run = runs.find((r) => r.id === p.id)
			if (!run) subjects.set(reference, { label: 'Enrichment run (deleted)', href: null })
			else {
				const listName = run.list_name ?? run.company_list_name
				const href = run.list_id
					? `/lists/${run.list_id}/enrich`
					: run.company_list_id
						? `/company-lists/${run.company_list_id}/enrich`
						: null
				subjects.set(reference, {
					label: `Enrichment “${run.name}”${listName ? ` on ${listName}` : ''}${retry(p.attempt)}`,
					href: listName ? href : null,
				})
			}
		} else if (p.kind === 'lead-scrape') {
			const search = searches.find((s) => s.id === p.id)
			subjects.set(
				reference,
				search?.list_id && search.list_name
					? {
							label: `Lead search “${search.list_name}”${retry(p.attempt)}`,
							href: `/lists/${search.list_id}`,
						}
					: { label: 'Lead search (list deleted)', href: null },
			)
		} else if (p.kind === 'company-scrape') {
			const list = companyLists.find((c) => c.id === p.id)
			subjects.set(
				reference,
				list
					? {
							label: `Company search “${list.name}”${retry(p.attempt)}`,
							href: `/company-lists/${list.id}`,
						}
					: { label: 'Company search (list deleted)', href: null },
			)
		}
	}
	return subjects
}
