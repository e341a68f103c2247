import { parse } from 'csv-parse/sync'
import { expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { insertUser } from '../../tests/support/factories.ts'
import { loadAccountContext } from '../context.server.ts'
import { csvCell } from '../services/emailbison/mapping.ts'
import { toCsv } from '../services/inboxes/csv.ts'
import { streamListCsv } from '../services/lists/export.server.ts'

// Formula injection (issue 32 point 10): what a spreadsheet could run as a formula leaves every
// CSV export as text: the list export (made by COPY in SQL), the inbox export and the rejected
// rows of an EmailBison upload.

const DANGEROUS = [
	'=1+1',
	'+1',
	'-1',
	'@SUM(A1)',
	'|calc',
	'\uFF1DHYPERLINK("http://x")', // ＝
	'\uFF0B1', // ＋
	'\uFF0D1', // －
	'\uFF20SUM(A1)', // ＠
	'\uFF5Ccalc', // ｜
	'\uFE661+1', // ﹦
	'\tx',
	'\r=1+1',
	'\n=1+1',
]
const HARMLESS = ['plain', 'a|b', 'x=1', "O'Brien", '"quoted"']

const expected = (value: string) => (HARMLESS.includes(value) ? value : `'${value}`)

test('the list export leaves every formula as text', async () => {
	const user = await insertUser(db)
	const account = await loadAccountContext(db, user)
	const list = await db
		.insertInto('processing_list')
		.values({ user_id: user.id, name: 'Formulas', source_type: 'upload', status: 2 })
		.returning('id')
		.executeTakeFirstOrThrow()
	const values = [...DANGEROUS, ...HARMLESS]
	await db
		.insertInto('leads')
		.values(
			values.map((value, i) => ({
				list_id: list.id,
				user_id: user.id,
				email: `p${i}@example.com`,
				first_name: value,
				data: JSON.stringify({ note: value }),
			})),
		)
		.execute()
	const download = await streamListCsv(account, list.id)
	const records = parse(Buffer.from(await new Response(download.stream).arrayBuffer()), {
		bom: true,
	}) as string[][]
	const header = records[0]!
	const rows = records.slice(1)
	const column = (name: string) => rows.map((r) => r[header.indexOf(name)])
	expect(column('first_name')).toEqual(values.map(expected))
	expect(column('note')).toEqual(values.map(expected))
})

test('the inbox export and the rejected rows of an upload do the same', () => {
	const values = [...DANGEROUS, ...HARMLESS]
	for (const make of [(v: string) => toCsv([[v]]), (v: string) => `${csvCell(v)}\r\n`]) {
		const cells = values.map((v) => (parse(make(v)) as string[][])[0]![0])
		expect(cells).toEqual(values.map(expected))
	}
})
