import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { sql } from 'kysely'
import { beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { insertSubscription, insertUser } from '../../../tests/support/factories.ts'
import { contextOf, insertWorkspace } from '../../../tests/support/team.ts'
import { xlsxOf, zipOf } from '../../../tests/support/xlsx.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { UploadRejected } from './csv-scan.server.ts'
import { guessMapping, LEAD_FIELD_KEYS, type MappingInput } from './mapping.ts'
import { runCsvImport } from './run-csv-import.server.ts'
import { startCsvImport } from './start-import.server.ts'
import { receiveCsvUpload, uploadsRoot } from './uploads.server.ts'

process.env.DATA_DIR = mkdtempSync(path.join(tmpdir(), 'leadsmith-xlsx-test-'))
resetSingleton('config')

let owner: Awaited<ReturnType<typeof contextOf>>
let workspaceId: string

beforeAll(async () => {
	const user = await insertUser(db)
	await insertSubscription(db, user.id)
	workspaceId = await insertWorkspace(db, user.id, 'Main')
	owner = await contextOf(db, user)
})

function upload(content: Buffer, fileName = 'leads.xlsx', maxBytes = 10 << 20) {
	return receiveCsvUpload({
		stream: Readable.from([content]),
		fileName,
		accountId: owner.accountId,
		maxBytes,
	})
}

function pendingFiles() {
	try {
		return readdirSync(path.join(uploadsRoot(), 'pending')).sort()
	} catch {
		return []
	}
}

async function rejection(run: Promise<unknown>) {
	const started = Date.now()
	const error = await run.catch((e: unknown) => e)
	expect(error).toBeInstanceOf(UploadRejected)
	return { message: (error as Error).message, ms: Date.now() - started }
}

describe('.xlsx import', () => {
	test('the first sheet imports as a CSV would, its report by the sheet’s row numbers', async () => {
		const workbook = xlsxOf([
			{
				name: 'Leads',
				rows: {
					1: ['Prénom', 'E-Mail', 'Société', 'Phone', 'Notes'],
					2: ['Ada', 'ADA@example.com', 'Analytical', 4930123, 'likes\nmaths'],
					// rows 3 and 4 are empty
					5: ['Grace', 'not an address', 'Navy', null, null],
					6: ['Linus', 'linus@kernel.org', 'Linux & Co <Ltd>', null, '"quoted", text'],
					7: ['Again', 'ada@example.com', null, null, null],
				},
			},
			{ name: 'Other', rows: [['Email'], ['other@example.com']] },
		])
		const uploaded = await upload(workbook)
		expect(uploaded.fileName).toBe('leads.xlsx')
		expect(uploaded.head[0]).toEqual(['Prénom', 'E-Mail', 'Société', 'Phone', 'Notes'])
		expect(uploaded.head[1]).toEqual([
			'Ada',
			'ADA@example.com',
			'Analytical',
			'4930123',
			'likes maths',
		])
		const guessed = guessMapping(uploaded.head[0]!, uploaded.head.slice(1))
		expect(guessed).toMatchObject({ first_name: 0, email: 1, company_name: 2, phone: 3 })
		const input = {
			intent: 'import',
			uploadId: uploaded.id,
			name: 'Workbook',
			hasHeader: true,
			keepExtra: true,
			...Object.fromEntries(LEAD_FIELD_KEYS.map((k) => [k, guessed[k]])),
		} as MappingInput
		const { listId } = await startCsvImport(owner, input, workspaceId)
		await sql`delete from pgboss.job where name = 'csv-import' and data->>'listId' = ${listId}`.execute(
			db,
		)
		await runCsvImport(listId)
		const leads = await db
			.selectFrom('leads')
			.select(['email', 'first_name', 'company_name', 'phone', 'data'])
			.where('list_id', '=', listId)
			.orderBy('email')
			.execute()
		expect(leads).toEqual([
			{
				email: 'ada@example.com',
				first_name: 'Ada',
				company_name: 'Analytical',
				phone: '4930123',
				data: { Notes: 'likes maths' },
			},
			{
				email: 'linus@kernel.org',
				first_name: 'Linus',
				company_name: 'Linux & Co <Ltd>',
				phone: null,
				data: { Notes: '"quoted", text' },
			},
		])
		const errors = await db
			.selectFrom('csv_import_errors')
			.select(['line', 'kind'])
			.where('list_id', '=', listId)
			.orderBy('line')
			.execute()
		expect(errors).toEqual([
			{ line: 5, kind: 'invalid' },
			{ line: 7, kind: 'duplicate' },
		])
	})

	test('a zip bomb, a malformed file and a workbook past its bounds are refused fast, nothing kept', async () => {
		const before = pendingFiles()
		const sheet = (rows: string) =>
			Buffer.from(`<worksheet><sheetData>${rows}</sheetData></worksheet>`)
		const parts = (worksheet: Buffer, declaredSize?: number) => [
			{
				name: 'xl/workbook.xml',
				data: Buffer.from('<workbook><sheets><sheet r:id="rId1"/></sheets></workbook>'),
			},
			{
				name: 'xl/_rels/workbook.xml.rels',
				data: Buffer.from(
					'<Relationships><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>',
				),
			},
			{ name: 'xl/worksheets/sheet1.xml', data: worksheet, declaredSize },
		]
		// a sheet that says it inflates to 3 GB
		const bomb = await rejection(upload(zipOf(parts(sheet(''), 3_000_000_000))))
		expect(bomb.message).toMatch(/too large when unpacked/)
		// a sheet that lies: says 100 bytes, inflates to 50 MB of rows
		const liar = await rejection(
			upload(zipOf(parts(sheet('<row><c><v>1</v></c></row>'.repeat(2_000_000)), 100))),
		)
		expect(liar.message).toMatch(/could not be read/)
		// not a zip at all, and a zip without a workbook
		expect((await rejection(upload(Buffer.from('PK\x03\x04rest')))).message).toMatch(
			/could not be read as an \.xlsx workbook/,
		)
		expect(
			(await rejection(upload(zipOf([{ name: 'a.txt', data: Buffer.from('x') }])))).message,
		).toMatch(/could not be read as an \.xlsx workbook/)
		// a cell past the last column, and too many sheets
		expect(
			(await rejection(upload(zipOf(parts(sheet('<row r="1"><c r="ZZZ1"><v>1</v></c></row>'))))))
				.message,
		).toMatch(/more than 1,000 columns/)
		const manySheets = xlsxOf(
			Array.from({ length: 101 }, (_, i) => ({ name: `S${i}`, rows: [['Email'], ['a@b.co']] })),
		)
		expect((await rejection(upload(manySheets))).message).toMatch(/more than 100 sheets/)
		// bigger than the upload limit
		expect(
			(await rejection(upload(xlsxOf([{ name: 'S', rows: [['Email']] }]), 'a.xlsx', 100))).message,
		).toMatch(/larger than/)
		expect(bomb.ms + liar.ms).toBeLessThan(10_000)
		expect(pendingFiles()).toEqual(before)
	})
})
