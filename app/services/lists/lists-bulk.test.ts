import { randomUUID } from 'node:crypto'
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
	recordSelection,
	runBulkAction,
	startBulkAction,
} from '../bulk/bulk-actions.server.ts'
import { newFormKey, oncePerSubmission } from '../idempotency/form-submissions.server.ts'
import { exportKind } from './bulk-forms.server.ts'
import { streamLeadSelectionCsv, streamListsCsv } from './export.server.ts'
import { leadBulk } from './leads-bulk.server.ts'
import { listBulk } from './lists-bulk.server.ts'
import { deleteLeadList } from './manage-list.server.ts'
import { deleteScrapeList } from '../leads/scrape-lists.server.ts'

// Issue 34: bulk actions on /scrape's lists (move, delete, export) touch only the account's
// lists, refuse a list that cannot go now with the reason, run once under a double submit;
// exports stream only the account's rows.

type Account = Awaited<ReturnType<typeof contextOf>>
let owner: Account
let stranger: Account
let main: string
let clients: string

beforeAll(async () => {
	const user = await insertUser(db)
	await insertSubscription(db, user.id)
	main = await insertWorkspace(db, user.id, 'Main')
	clients = await insertWorkspace(db, user.id, 'Clients')
	owner = (await loadAccountContext(db, user)) as Account
	const other = await insertUser(db)
	await insertSubscription(db, other.id)
	await insertWorkspace(db, other.id, 'Theirs')
	stranger = await contextOf(db, other)
})

async function leadList(account: Account, emails: string[], name = 'Leads') {
	const listId = randomUUID()
	const workspace = account === owner ? main : account.workspaces[0]!.id
	await db
		.insertInto('processing_list')
		.values({
			id: listId,
			user_id: account.accountId,
			workspace_id: workspace,
			name,
			source_type: 'upload',
			status: 2,
			found: emails.length,
		})
		.execute()
	if (emails.length)
		await db
			.insertInto('leads')
			.values(
				emails.map((email) => ({
					list_id: listId,
					user_id: account.accountId,
					workspace_id: workspace,
					email,
				})),
			)
			.execute()
	return listId
}

async function companyList(account: Account) {
	const row = await db
		.insertInto('company_scraping_list')
		.values({
			user_id: account.accountId,
			workspace_id: account === owner ? main : account.workspaces[0]!.id,
			name: 'Companies',
			source_type: 'domains',
			status: 2,
		})
		.returning('id')
		.executeTakeFirstOrThrow()
	return row.id
}

async function workspaceOf(listId: string) {
	const row = await db
		.selectFrom('processing_list')
		.select('workspace_id')
		.where('id', '=', listId)
		.executeTakeFirst()
	return row?.workspace_id
}

async function startAndRun(account: Account, input: Parameters<typeof startBulkAction>[2]) {
	const started = await startBulkAction(account, listBulk, input)
	await runBulkAction(started.id, [listBulk])
	return findBulkAction(account, started.id)
}

async function text(stream: ReadableStream<Uint8Array>) {
	return new Response(stream).text()
}

const mail = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`

describe('move and delete', () => {
	test("moves the account's lists to a workspace; another account's are skipped and untouched", async () => {
		const mine = await leadList(owner, [mail('a')])
		const theirs = await leadList(stranger, [mail('b')])
		const theirWorkspace = await workspaceOf(theirs)
		const result = await startAndRun(owner, {
			action: 'move',
			params: { workspaceId: clients },
			selection: { ids: [mine, theirs] },
		})
		expect(result).toMatchObject({ status: 'done', total: 2, done: 1, skipped: 1 })
		expect(result.notes[0]?.reason).toBe(NOT_YOURS)
		expect(await workspaceOf(mine)).toBe(clients)
		expect(await workspaceOf(theirs)).toBe(theirWorkspace)
		// its leads go with it
		const leads = await db
			.selectFrom('leads')
			.select('workspace_id')
			.where('list_id', '=', mine)
			.execute()
		expect(leads.map((l) => l.workspace_id)).toEqual([clients])
	})

	test('delete refuses a list with a running enrichment, with the reason; deletes the rest', async () => {
		const busy = await leadList(owner, [mail('e')], 'Busy')
		const free = await leadList(owner, [mail('f')], 'Free')
		const company = await companyList(owner)
		const theirs = await leadList(stranger, [mail('g')])
		await db
			.insertInto('enrichment_runs')
			.values({
				user_id: owner.accountId,
				list_id: busy,
				name: 'Running',
				steps: '[]',
				key_kind: 'ownKey',
				status: 1,
			})
			.execute()
		const result = await startAndRun(owner, {
			action: 'delete',
			selection: { ids: [busy, free, company, theirs] },
		})
		expect(result).toMatchObject({ status: 'done', total: 4, done: 2, skipped: 2 })
		expect(result.notes).toEqual(
			expect.arrayContaining([
				{
					name: 'Busy',
					outcome: 'skipped',
					reason: expect.stringMatching(/enrichment is running/),
				},
				{ name: theirs, outcome: 'skipped', reason: NOT_YOURS },
			]),
		)
		expect(await workspaceOf(busy)).toBe(main)
		expect(await workspaceOf(free)).toBeUndefined()
		expect(await workspaceOf(theirs)).toBeDefined()
		const companies = await db
			.selectFrom('company_scraping_list')
			.select('id')
			.where('id', '=', company)
			.execute()
		expect(companies).toEqual([])
	})

	test('a double submit starts one job', async () => {
		const list = await leadList(owner, [mail('d')])
		const formData = new FormData()
		formData.set('idempotencyKey', newFormKey())
		formData.append('ids', list)
		const submit = () =>
			oncePerSubmission({ accountId: owner.accountId, form: 'lists-bulk', formData }, (trx) =>
				startBulkAction(owner, listBulk, { action: 'delete', selection: { ids: [list] } }, trx),
			)
		const [first, second] = await Promise.all([submit(), submit()])
		expect(second.id).toBe(first.id)
		const rows = await db
			.selectFrom('bulk_actions')
			.select('id')
			.where('kind', '=', 'lists')
			.where(sql<boolean>`${list} = any(ids)`)
			.execute()
		expect(rows).toHaveLength(1)
	})
})

// Issue 34: one rule for deleting a list, the service's: a row's Delete (/scrape, /file-list,
// the API) refuses what bulk delete refuses, with the same reason.
describe('the single delete refuses as bulk delete does', () => {
	async function runningEnrichment(listId: string) {
		await db
			.insertInto('enrichment_runs')
			.values({
				user_id: owner.accountId,
				list_id: listId,
				name: 'Running',
				steps: '[]',
				key_kind: 'ownKey',
				status: 0,
			})
			.execute()
	}

	async function refusal(run: () => Promise<unknown>) {
		try {
			await run()
		} catch (error) {
			return error instanceof Error ? error.message : String(error)
		}
		return 'deleted'
	}

	test('a lead list with a running enrichment is kept, from /scrape and from /file-list', async () => {
		const list = await leadList(owner, [mail('h')], 'Enriching')
		await runningEnrichment(list)
		expect(await refusal(() => deleteScrapeList(owner, 'leads', list))).toMatch(
			/enrichment is running/,
		)
		expect(await refusal(() => deleteLeadList(owner, list))).toMatch(/enrichment is running/)
		expect(await workspaceOf(list)).toBe(main)
	})

	test('a lead list being uploaded to EmailBison is kept', async () => {
		const list = await leadList(owner, [mail('i')], 'Uploading')
		await db
			.insertInto('emailbison_upload')
			.values({ user_id: owner.accountId, list_id: list, eb_workspace_id: '1', status: 1 })
			.execute()
		expect(await refusal(() => deleteLeadList(owner, list))).toMatch(/uploaded to EmailBison/)
		expect(await workspaceOf(list)).toBe(main)
	})

	test('a company list with a running enrichment is kept; a free one goes', async () => {
		const busy = await companyList(owner)
		await db
			.insertInto('enrichment_runs')
			.values({
				user_id: owner.accountId,
				company_list_id: busy,
				name: 'Running',
				steps: '[]',
				key_kind: 'ownKey',
				status: 1,
			})
			.execute()
		expect(await refusal(() => deleteScrapeList(owner, 'companies', busy))).toMatch(
			/enrichment is running/,
		)
		const free = await companyList(owner)
		expect(await refusal(() => deleteScrapeList(owner, 'companies', free))).toBe('deleted')
	})
})

describe('export', () => {
	test("one CSV of the account's chosen lead lists, a list column naming each; never another account's", async () => {
		const a = mail('one')
		const b = mail('two')
		const first = await leadList(owner, [a], 'First')
		const second = await leadList(owner, [b], 'Second')
		const theirs = await leadList(stranger, [mail('secret')], 'Theirs')
		const { kind, listIds } = await exportKind(owner, { ids: [first, second, theirs] })
		expect(kind).toBe('leads')
		expect(listIds.sort()).toEqual([first, second].sort())
		const csv = await text((await streamListsCsv(kind, listIds)).stream)
		const lines = csv.replace('\uFEFF', '').trim().split('\n')
		expect(lines[0]).toMatch(/^list,email,first_name/)
		expect(lines.slice(1).sort()).toEqual([`First,${a},,,,,,,,,`, `Second,${b},,,,,,,,,`].sort())
		expect(csv).not.toContain('secret')
	})

	test('lead lists and company lists are exported separately', async () => {
		const leads = await leadList(owner, [mail('x')])
		const companies = await companyList(owner)
		await expect(exportKind(owner, { ids: [leads, companies] })).rejects.toThrow(/separately/)
	})

	test("a list page's export takes the ticked leads, or all matching the search, of that list only", async () => {
		const tag = Math.random().toString(36).slice(2, 8)
		const emails = [`${tag}a@example.com`, `${tag}b@example.com`, mail('other')]
		const list = await leadList(owner, emails)
		const ids = await db
			.selectFrom('leads')
			.select(['id', 'email'])
			.where('list_id', '=', list)
			.orderBy('email')
			.execute()
		const theirList = await leadList(stranger, [`${tag}c@example.com`])
		const theirLead = await db
			.selectFrom('leads')
			.select('id')
			.where('list_id', '=', theirList)
			.executeTakeFirstOrThrow()
		const ticked = await recordSelection(owner, leadBulk, {
			ids: [ids[0]!.id, theirLead.id],
		})
		const selected = await readSelection(owner, 'leads', ticked)
		const one = await text((await streamLeadSelectionCsv(owner, list, selected)).stream)
		expect(one).toContain(ids[0]!.email)
		expect(one).not.toContain(ids[1]!.email)
		expect(one).not.toContain(`${tag}c@`)
		const matching = await text(
			(await streamLeadSelectionCsv(owner, list, { filter: { list, q: tag } })).stream,
		)
		expect(matching.trim().split('\n')).toHaveLength(3)
		expect(matching).not.toContain('other-')
		// another account cannot read the selection
		await expect(readSelection(stranger, 'leads', ticked)).rejects.toMatchObject({
			init: { status: 404 },
		})
	})
})
