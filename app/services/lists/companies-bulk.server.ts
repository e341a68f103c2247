import { sql, type ExpressionBuilder } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { isUuid } from '../../utils/http-errors.server.ts'
import type { BulkFilter, BulkHandler, BulkOutcome, BulkRow } from '../bulk/types.ts'
import { actingAccount, type ActingAccount } from '../workspaces/access.server.ts'
import { searchCondition } from './companies-page.server.ts'
import { deleteRowsOfLists } from './delete-rows.server.ts'

/**
 * Bulk actions on the companies of a company list's page (issue 34, decision 0101), as the
 * leads' (decision 0089): delete is one statement per batch of up to 1,000 ids, the list's
 * `found` lowered in the same statement; export is a kept selection and a download. Companies
 * have no single-row actions, so no move: none exists for one company either.
 */

/** Company lists of the account in a workspace this user may use (as findCompanyList says). */
function usableLists(account: ActingAccount) {
	const ids = account.workspaces.map((w) => w.id)
	return (eb: ExpressionBuilder<DB, 'company_scraping_list'>) =>
		eb.and([
			eb('company_scraping_list.user_id', '=', account.accountId),
			eb.or([
				...(ids.length ? [eb('company_scraping_list.workspace_id', 'in', ids)] : []),
				...(account.accessAllWorkspaces
					? [eb('company_scraping_list.workspace_id', 'is', null)]
					: []),
				eb.val(false),
			]),
		])
}

/** The companies a filter of the page selects: its list and its search. */
function filtered(account: ActingAccount, filter: BulkFilter) {
	const listId = isUuid(filter.list) ? filter.list : '00000000-0000-0000-0000-000000000000'
	return db
		.selectFrom('companies')
		.where('companies.list_id', '=', listId)
		.where((eb) =>
			eb.exists(
				eb
					.selectFrom('company_scraping_list')
					.select('company_scraping_list.id')
					.whereRef('company_scraping_list.id', '=', 'companies.list_id')
					.where(usableLists(account)),
			),
		)
		.$if(Boolean(filter.q), (q) => q.where(searchCondition(filter.q!)))
}

const RUNNING = [0, 1]
const STILL_FILLING = 'its list is still being filled'
const nameOf = sql<string>`coalesce(nullif(companies.name, ''), companies.domain, '(no name)')`

/** Deletes the companies and counts them out of their lists, in one statement. */
async function deleteCompanies(rows: BulkRow[]) {
	const outcomes = new Map<string, BulkOutcome>()
	const ids = rows.map((r) => r.id)
	// a search still running writes the list's rows and its count: its companies wait
	const busy = await db
		.selectFrom('companies')
		.innerJoin('company_scraping_list as l', 'l.id', 'companies.list_id')
		.select('companies.id')
		.where('companies.id', 'in', ids)
		.where('l.status', 'in', RUNNING)
		.execute()
	for (const { id } of busy) outcomes.set(id, { skipped: STILL_FILLING })
	const free = ids.filter((id) => !outcomes.has(id))
	for (const [id, outcome] of await deleteRowsOfLists(
		{ rows: 'companies', lists: 'company_scraping_list' },
		free,
	))
		outcomes.set(id, outcome)
	return outcomes
}

export const companyBulk: BulkHandler = {
	kind: 'companies',
	authorize: (account) => void actingAccount(account),
	// a batch is one statement: larger batches, fewer round trips
	batchSize: 1000,
	async owned(account, ids) {
		const valid = ids.filter(isUuid)
		if (valid.length === 0) return []
		return db
			.selectFrom('companies')
			.innerJoin('company_scraping_list', 'company_scraping_list.id', 'companies.list_id')
			.select(['companies.id', nameOf.as('name')])
			.where(usableLists(actingAccount(account)))
			.where('companies.id', 'in', valid)
			.execute()
	},
	async matching(account, filter, afterId, limit) {
		return filtered(actingAccount(account), filter)
			.select(['companies.id', nameOf.as('name')])
			.$if(afterId !== null, (q) => q.where('companies.id', '>', afterId!))
			.orderBy('companies.id')
			.limit(limit)
			.execute()
	},
	async count(account, filter) {
		const row = await filtered(actingAccount(account), filter)
			.select((eb) => eb.fn.countAll<string>().as('n'))
			.executeTakeFirstOrThrow()
		return Number(row.n)
	},
	actions: {
		delete: {
			label: 'Delete companies',
			runBatch: (_account, rows) => deleteCompanies(rows),
			run: async (_account, row) => (await deleteCompanies([row])).get(row.id) ?? 'done',
		},
	},
}
