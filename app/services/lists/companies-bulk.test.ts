import { sql } from 'kysely'
import { beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { insertSubscription, insertUser } from '../../../tests/support/factories.ts'
import { contextOf, insertWorkspace } from '../../../tests/support/team.ts'
import { loadAccountContext } from '../../context.server.ts'
import {
	findBulkAction,
	NOT_YOURS,
	readSelection,
	runBulkAction,
	startBulkAction,
} from '../bulk/bulk-actions.server.ts'
import { newFormKey } from '../idempotency/form-submissions.server.ts'
import { companiesBulkForm } from './bulk-forms.server.ts'
import { companyBulk } from './companies-bulk.server.ts'
import { streamCompanySelectionCsv } from './export.server.ts'

// Issue 34: a company list's page has row selection with bulk delete and export, as the
// leads' (decision 0101): only the account's companies are touched (another account's ids are
// skipped and reported), the list's count follows, a double submit starts one job, and the
// export holds only the chosen companies of this list.

type Account = Awaited<ReturnType<typeof contextOf>>
let owner: Account
let stranger: Account

beforeAll(async () => {
	const user = await insertUser(db)
	await insertSubscription(db, user.id)
	await insertWorkspace(db, user.id, 'Main')
	owner = (await loadAccountContext(db, user)) as Account
	const other = await insertUser(db)
	await insertSubscription(db, other.id)
	await insertWorkspace(db, other.id, 'Theirs')
	stranger = await contextOf(db, other)
})

async function companyList(account: Account, names: string[], status = 2) {
	const workspace = account.workspaces[0]!.id
	const list = await db
		.insertInto('company_scraping_list')
		.values({
			user_id: account.accountId,
			workspace_id: workspace,
			name: 'Companies',
			source_type: 'domains',
			status,
			found: names.length,
		})
		.returning('id')
		.executeTakeFirstOrThrow()
	const rows = await db
		.insertInto('companies')
		.values(
			names.map((name) => ({
				list_id: list.id,
				user_id: account.accountId,
				workspace_id: workspace,
				name,
				domain: `${name.toLowerCase().replace(/\W/g, '')}.com`,
			})),
		)
		.returning(['id', 'name'])
		.execute()
	return { listId: list.id, ids: Object.fromEntries(rows.map((r) => [r.name!, r.id])) }
}

async function namesIn(listId: string) {
	const rows = await db
		.selectFrom('companies')
		.select('name')
		.where('list_id', '=', listId)
		.orderBy('name')
		.execute()
	return rows.map((r) => r.name)
}

async function foundOf(listId: string) {
	const row = await db
		.selectFrom('company_scraping_list')
		.select('found')
		.where('id', '=', listId)
		.executeTakeFirstOrThrow()
	return row.found
}

async function startAndRun(account: Account, input: Parameters<typeof startBulkAction>[2]) {
	const started = await startBulkAction(account, companyBulk, input)
	await runBulkAction(started.id, [companyBulk])
	return findBulkAction(account, started.id)
}

function form(fields: Record<string, string | string[]>) {
	const formData = new FormData()
	for (const [name, value] of Object.entries(fields))
		for (const v of [value].flat()) formData.append(name, v)
	return formData
}

describe('delete', () => {
	test("deletes the ticked companies and lowers the list's count; another account's are skipped", async () => {
		const mine = await companyList(owner, ['Acme', 'Beta', 'Gamma'])
		const theirs = await companyList(stranger, ['Theirs'])
		const result = await startAndRun(owner, {
			action: 'delete',
			selection: { ids: [mine.ids.Acme!, mine.ids.Beta!, theirs.ids.Theirs!] },
		})
		expect(result).toMatchObject({ status: 'done', total: 3, done: 2, skipped: 1 })
		expect(result.notes).toEqual([
			expect.objectContaining({ outcome: 'skipped', reason: NOT_YOURS }),
		])
		expect(await namesIn(mine.listId)).toEqual(['Gamma'])
		expect(await foundOf(mine.listId)).toBe(1)
		expect(await namesIn(theirs.listId)).toEqual(['Theirs'])
	})

	test("all matching the search, on the page's list only", async () => {
		const mine = await companyList(owner, ['Acme One', 'Acme Two', 'Other'])
		const elsewhere = await companyList(owner, ['Acme Three'])
		const result = await startAndRun(owner, {
			action: 'delete',
			selection: { filter: { list: mine.listId, q: 'acme' } },
		})
		expect(result).toMatchObject({ status: 'done', total: 2, done: 2 })
		expect(await namesIn(mine.listId)).toEqual(['Other'])
		expect(await namesIn(elsewhere.listId)).toEqual(['Acme Three'])
	})

	test('a list still being filled keeps its companies, with the reason', async () => {
		const running = await companyList(owner, ['Busy'], 1)
		const result = await startAndRun(owner, {
			action: 'delete',
			selection: { ids: [running.ids.Busy!] },
		})
		expect(result).toMatchObject({ done: 0, skipped: 1 })
		expect(result.notes[0]?.reason).toMatch(/still being filled/)
		expect(await namesIn(running.listId)).toEqual(['Busy'])
	})

	test("a double submit of the page's form starts one job", async () => {
		const mine = await companyList(owner, ['Twice'])
		const fields = {
			intent: 'bulk',
			action: 'delete',
			idempotencyKey: newFormKey(),
			ids: [mine.ids.Twice!],
		}
		const answers = await Promise.all([
			companiesBulkForm(owner, mine.listId, form(fields)),
			companiesBulkForm(owner, mine.listId, form(fields)),
		])
		const locations = answers.map((a) => (a as Response).headers.get('Location'))
		expect(locations[0]).toMatch(/\?bulk=/)
		expect(locations[1]).toBe(locations[0])
		const rows = await db
			.selectFrom('bulk_actions')
			.select('id')
			.where('kind', '=', 'companies')
			.where(sql<boolean>`${mine.ids.Twice!} = any(ids)`)
			.execute()
		expect(rows).toHaveLength(1)
	})
})

describe('export', () => {
	test("the ticked companies of this list, never another account's", async () => {
		const mine = await companyList(owner, ['Alpha', 'Bravo', 'Charlie'])
		const theirs = await companyList(stranger, ['Secret'])
		const answer = (await companiesBulkForm(
			owner,
			mine.listId,
			form({
				intent: 'bulk',
				action: 'export',
				idempotencyKey: newFormKey(),
				ids: [mine.ids.Alpha!, mine.ids.Charlie!, theirs.ids.Secret!],
			}),
		)) as Response
		const location = answer.headers.get('Location')!
		expect(location).toMatch(
			new RegExp(`^/lists/${mine.listId}/download\\?kind=companies&selection=`),
		)
		const selection = await readSelection(
			owner,
			'companies',
			new URL(location, 'http://x').searchParams.get('selection'),
		)
		const download = await streamCompanySelectionCsv(owner, mine.listId, selection)
		const csv = await new Response(download.stream).text()
		const lines = csv.replace('\uFEFF', '').trim().split('\n')
		expect(lines[0]).toMatch(/^name,domain,/)
		expect(
			lines
				.slice(1)
				.map((l) => l.split(',')[0])
				.sort(),
		).toEqual(['Alpha', 'Charlie'])
		// another account cannot read this selection
		await expect(
			readSelection(
				stranger,
				'companies',
				selection && new URL(location, 'http://x').searchParams.get('selection'),
			),
		).rejects.toBeDefined()
	})
})
