import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { sql } from 'kysely'
import { afterEach, beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { insertSubscription, insertUser } from '../../../tests/support/factories.ts'
import { contextOf, insertWorkspace, outcomeOf } from '../../../tests/support/team.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { guessMapping, LEAD_FIELD_KEYS, type MappingInput } from '../imports/mapping.ts'
import { runCsvImport } from '../imports/run-csv-import.server.ts'
import { startCsvImport } from '../imports/start-import.server.ts'
import { receiveCsvUpload } from '../imports/uploads.server.ts'
import { keptColumns, remapKeptColumn, remapTuning, runRemap } from './remap-columns.server.ts'

process.env.DATA_DIR = mkdtempSync(path.join(tmpdir(), 'leadsmith-remap-test-'))
resetSingleton('config')

type Account = Awaited<ReturnType<typeof contextOf>>
let owner: Account
let stranger: Account
let workspaceId: string

beforeAll(async () => {
	const user = await insertUser(db)
	await insertSubscription(db, user.id)
	workspaceId = await insertWorkspace(db, user.id, 'Main')
	owner = await contextOf(db, user)
	const other = await insertUser(db)
	await insertSubscription(db, other.id)
	stranger = await contextOf(db, other)
})

afterEach(() => {
	remapTuning.inlineMax = 20_000
})

const CSV =
	'Email,Name,Their job,Homepage,Notes\n' +
	'ada@example.com,Ada,Countess,https://www.Analytical.co.uk/,likes maths\n' +
	'grace@navy.mil,Grace,,navy.mil,\n' +
	'linus@kernel.org,Linus,Maintainer,,kernel\n'

async function importedList() {
	const uploaded = await receiveCsvUpload({
		stream: Readable.from([Buffer.from(CSV)]),
		fileName: 'leads.csv',
		accountId: owner.accountId,
		maxBytes: 1 << 20,
	})
	const guessed = guessMapping(uploaded.head[0]!, uploaded.head.slice(1))
	const input = {
		intent: 'import',
		uploadId: uploaded.id,
		name: 'Kept columns',
		hasHeader: true,
		keepExtra: true,
		...Object.fromEntries(LEAD_FIELD_KEYS.map((k) => [k, guessed[k]])),
	} as MappingInput
	const { listId } = await startCsvImport(owner, input, workspaceId)
	await sql`delete from pgboss.job where name = 'csv-import' and data->>'listId' = ${listId}`.execute(
		db,
	)
	await runCsvImport(listId)
	return listId
}

async function leadsOf(listId: string) {
	return db
		.selectFrom('leads')
		.select(['email', 'title', 'company_domain', 'data'])
		.where('list_id', '=', listId)
		.orderBy('email')
		.execute()
}

describe('re-mapping kept columns', () => {
	test('moves a kept column into a lead field for the whole list, in one statement', async () => {
		const listId = await importedList()
		expect((await keptColumns(owner, listId)).columns).toEqual([
			'Name',
			'Their job',
			'Homepage',
			'Notes',
		])
		const moved = await remapKeptColumn(owner, listId, {
			intent: 'remap',
			column: 'Their job',
			field: 'title',
		})
		expect(moved).toEqual({ queued: false, leads: 2 })
		await remapKeptColumn(owner, listId, {
			intent: 'remap',
			column: 'Homepage',
			field: 'company_domain',
		})
		expect(await leadsOf(listId)).toEqual([
			{
				email: 'ada@example.com',
				title: 'Countess',
				company_domain: 'analytical.co.uk',
				data: { Name: 'Ada', Notes: 'likes maths' },
			},
			{ email: 'grace@navy.mil', title: null, company_domain: 'navy.mil', data: { Name: 'Grace' } },
			{
				email: 'linus@kernel.org',
				title: 'Maintainer',
				company_domain: null,
				data: { Name: 'Linus', Notes: 'kernel' },
			},
		])
		// the moved columns are no longer offered
		expect((await keptColumns(owner, listId)).columns).toEqual(['Name', 'Notes'])
		// a column the list does not keep is a field error
		expect(
			await outcomeOf(() =>
				remapKeptColumn(owner, listId, { intent: 'remap', column: 'Homepage', field: 'title' }),
			),
		).toBe('form')
	})

	test('a big list is re-mapped by a job', async () => {
		const listId = await importedList()
		remapTuning.inlineMax = 1
		const queued = await remapKeptColumn(owner, listId, {
			intent: 'remap',
			column: 'Notes',
			field: 'location',
		})
		expect(queued).toEqual({ queued: true, leads: 3 })
		const jobs = await sql<{ data: unknown }>`
			select data from pgboss.job where name = 'lead-remap' and data->>'listId' = ${listId}`.execute(db)
		expect(jobs.rows).toEqual([{ data: { listId, column: 'Notes', field: 'location' } }])
		await runRemap(listId, 'Notes', 'location')
		const leads = await db
			.selectFrom('leads')
			.select(['email', 'location'])
			.where('list_id', '=', listId)
			.orderBy('email')
			.execute()
		expect(leads.map((l) => l.location)).toEqual(['likes maths', null, 'kernel'])
	})

	test("another account's list is a 404, and nothing moves", async () => {
		const listId = await importedList()
		expect(await outcomeOf(() => keptColumns(stranger, listId))).toBe(404)
		expect(
			await outcomeOf(() =>
				remapKeptColumn(stranger, listId, { intent: 'remap', column: 'Notes', field: 'title' }),
			),
		).toBe(404)
		expect((await leadsOf(listId))[0]!.data).toMatchObject({ Notes: 'likes maths' })
	})
})
