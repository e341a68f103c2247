import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { parse } from 'csv-parse/sync'
import { sql } from 'kysely'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { insertSubscription, insertUser } from '../../../tests/support/factories.ts'
import { contextOf, insertMember, insertWorkspace, outcomeOf } from '../../../tests/support/team.ts'
import { startWorkers, type Workers } from '../../jobs/worker.server.ts'
import { streamCompanyListCsv, streamListCsv } from '../lists/export.server.ts'
import { listLeadsPage } from '../lists/leads-page.server.ts'
import { deleteLeadList } from '../lists/manage-list.server.ts'
import { UploadRejected } from './csv-scan.server.ts'
import { importReport, streamImportErrorsCsv } from './import-report.server.ts'
import { guessMapping, LEAD_FIELD_KEYS, type MappingInput } from './mapping.ts'
import { importHooks, importTuning, runCsvImport } from './run-csv-import.server.ts'
import { startCsvImport } from './start-import.server.ts'
import { receiveCsvUpload, uploadsRoot } from './uploads.server.ts'

process.env.DATA_DIR = mkdtempSync(path.join(tmpdir(), 'leadsmith-import-test-'))
resetSingleton('config')

type Account = Awaited<ReturnType<typeof contextOf>>

let owner: Account
let workspaceId: string
let workers: Workers | null = null

beforeAll(async () => {
	const user = await insertUser(db)
	await insertSubscription(db, user.id)
	workspaceId = await insertWorkspace(db, user.id, 'Main')
	owner = await contextOf(db, user)
})

afterAll(async () => {
	await workers?.stop()
})

afterEach(() => {
	delete importHooks.beforeCommit
	delete importHooks.afterCommit
	importTuning.batchRows = 10_000
	importTuning.chunkBytes = 1 << 20
})

function upload(account: Account, content: string | Buffer, fileName = 'leads.csv') {
	return receiveCsvUpload({
		stream: Readable.from([Buffer.isBuffer(content) ? content : Buffer.from(content)]),
		fileName,
		accountId: account.accountId,
		maxBytes: 10 << 20,
	})
}

function mappingFrom(
	uploaded: Awaited<ReturnType<typeof upload>>,
	overrides: Partial<MappingInput> = {},
): MappingInput {
	const guessed = guessMapping(uploaded.head[0]!, uploaded.head.slice(1))
	const fields = Object.fromEntries(LEAD_FIELD_KEYS.map((k) => [k, guessed[k]]))
	return {
		intent: 'import',
		uploadId: uploaded.id,
		name: uploaded.fileName,
		hasHeader: true,
		keepExtra: true,
		...fields,
		email: guessed.email!,
		...overrides,
	} as MappingInput
}

async function importThroughWorker(account: Account, content: string | Buffer) {
	workers ??= await startWorkers({ concurrency: 1, drainSeconds: 5 })
	const uploaded = await upload(account, content)
	const { listId } = await startCsvImport(account, mappingFrom(uploaded), null)
	await expect
		.poll(async () => (await listRow(listId)).status, { timeout: 20_000, interval: 200 })
		.toBeGreaterThanOrEqual(2)
	return listId
}

/** Starts an import whose job the tests run by hand: its queued job is removed. */
async function startByHand(account: Account, uploaded: Awaited<ReturnType<typeof upload>>) {
	const { listId } = await startCsvImport(account, mappingFrom(uploaded), workspaceId)
	await sql`delete from pgboss.job where name = 'csv-import' and data->>'listId' = ${listId}`.execute(
		db,
	)
	return listId
}

async function listRow(listId: string) {
	return db
		.selectFrom('processing_list')
		.selectAll()
		.where('id', '=', listId)
		.executeTakeFirstOrThrow()
}

async function leadsOf(listId: string) {
	return db.selectFrom('leads').selectAll().where('list_id', '=', listId).orderBy('id').execute()
}

async function errorsOf(listId: string) {
	return db
		.selectFrom('csv_import_errors')
		.select(['line', 'kind', 'email', 'message'])
		.where('list_id', '=', listId)
		.orderBy('line')
		.execute()
}

async function text(stream: ReadableStream<Uint8Array>) {
	return new Response(stream).text()
}

describe('upload and mapping', () => {
	test('headers are recognised and the mapping guessed from them', async () => {
		const uploaded = await upload(
			owner,
			'E-mail Address,First Name,Surname,Job Title,Company,Website,LinkedIn,City,Mobile,Notes\n' +
				'ada@example.com,Ada,Lovelace,Countess,Analytical,example.com,https://linkedin.com/in/ada,London,+44 1,x\n',
		)
		expect(uploaded.records).toBe(2)
		const mapping = guessMapping(uploaded.head[0]!, uploaded.head.slice(1))
		expect(mapping).toMatchObject({
			email: 0,
			first_name: 1,
			last_name: 2,
			title: 3,
			company_name: 4,
			company_domain: 5,
			linkedin_url: 6,
			location: 7,
			phone: 8,
			extra: [[9, 'Notes']],
		})
	})

	test('a file without headers finds the email column by its values', async () => {
		const uploaded = await upload(owner, 'Ada,ada@example.com\nGrace,grace@example.com\n')
		expect(guessMapping(null, uploaded.head).email).toBe(1)
	})

	test('a file that is not UTF-8 is refused with its line, and nothing is kept', async () => {
		const latin1 = Buffer.concat([
			Buffer.from('email,name\nada@example.com,Ada\n'),
			Buffer.from([0x6a, 0x6f, 0x73, 0xe9, 0x40, 0x78, 0x2e, 0x63, 0x6f, 0x2c, 0x4a, 0x0a]),
		])
		const before = pendingFiles()
		const error = await upload(owner, latin1).catch((e: unknown) => e)
		expect(error).toBeInstanceOf(UploadRejected)
		expect((error as Error).message).toMatch(/not UTF-8 text \(the first problem is on line 3\)/)
		expect(pendingFiles()).toEqual(before)
	})

	test('a file with no email column is refused', async () => {
		const error = await upload(owner, 'name,company\nAda,Analytical\nGrace,Navy\n').catch(
			(e: unknown) => e,
		)
		expect(error).toBeInstanceOf(UploadRejected)
		expect((error as Error).message).toMatch(/No email column found/)
	})

	test('an unclosed quote, a workbook and UTF-16 are refused with a reason', async () => {
		await expect(upload(owner, 'email,name\na@b.co,"Ada\nb@c.co,x\n')).rejects.toThrow(
			/starts on line 2 is never closed/,
		)
		await expect(upload(owner, Buffer.from('PK\x03\x04rest'))).rejects.toThrow(/workbook/)
		await expect(upload(owner, Buffer.from('\xff\xfee\x00', 'latin1'))).rejects.toThrow(/UTF-16/)
	})

	test('a mapping without email, or with a column used twice, is a field error', async () => {
		const { MappingSchema } = await import('./mapping.ts')
		const base = { intent: 'import', uploadId: crypto.randomUUID(), name: 'x' }
		const missing = MappingSchema.safeParse({ ...base, first_name: 0 })
		expect(missing.success).toBe(false)
		expect(missing.error!.issues[0]!.path).toEqual(['email'])
		const twice = MappingSchema.safeParse({ ...base, email: 1, last_name: 1 })
		expect(twice.error!.issues[0]).toMatchObject({ path: ['last_name'] })
		expect(twice.error!.issues[0]!.message).toBe('Column B is already used for Email')
	})
})

function pendingFiles() {
	try {
		return readdirSync(path.join(uploadsRoot(), 'pending')).sort()
	} catch {
		return []
	}
}

describe('the csv-import job, run by hand (before any worker starts)', () => {
	test('a worker that dies mid-file resumes from its checkpoint: every row exactly once', async () => {
		importTuning.batchRows = 50
		importTuning.chunkBytes = 1024
		const rows = ['email,first_name,last_name']
		for (let i = 0; i < 1200; i++) {
			// every 10th row repeats an earlier address (other case), every 25th is invalid
			const email =
				i % 25 === 24
					? `broken-${i}`
					: i % 10 === 9
						? `PERSON${i - 5}@Example.com`
						: `person${i}@example.com`
			rows.push(`${email},"First ${i}",Last${i}`)
		}
		const csv = `${rows.join('\n')}\n`
		const uploaded = await upload(owner, csv)
		const listId = await startByHand(owner, uploaded)

		// 1: dies inside the 5th batch's transaction (it rolls back)
		importHooks.beforeCommit = (id, batch) => {
			if (id === listId && batch === 5) throw new Error('killed before commit')
		}
		await expect(runCsvImport(listId)).rejects.toThrow('killed before commit')
		let state = await db
			.selectFrom('csv_imports')
			.selectAll()
			.where('list_id', '=', listId)
			.executeTakeFirstOrThrow()
		expect(state.batches).toBe(4)
		expect(state.rows_done).toBe(200)
		expect((await listRow(listId)).status).toBe(1)
		expect((await leadsOf(listId)).length).toBe(state.imported)

		// 2: dies right after the 7th checkpoint of the second run
		importHooks.beforeCommit = undefined
		importHooks.afterCommit = (id, batch) => {
			if (id === listId && batch === 7) throw new Error('killed after commit')
		}
		await expect(runCsvImport(listId, { retryCount: 1 })).rejects.toThrow('killed after commit')
		state = await db
			.selectFrom('csv_imports')
			.selectAll()
			.where('list_id', '=', listId)
			.executeTakeFirstOrThrow()
		expect(state.batches).toBe(11)
		expect((await leadsOf(listId)).length).toBe(state.imported)

		// 3: runs to the end
		importHooks.afterCommit = undefined
		await runCsvImport(listId, { retryCount: 2 })
		const leads = await leadsOf(listId)
		const expected = new Set(
			rows
				.slice(1)
				.map((r) => r.split(',')[0]!.toLowerCase())
				.filter((e) => e.includes('@')),
		)
		expect(leads.length).toBe(expected.size)
		expect(new Set(leads.map((l) => l.email.toLowerCase()))).toEqual(expected)
		const errors = await errorsOf(listId)
		expect(errors.filter((e) => e.kind === 'invalid').length).toBe(48)
		expect(errors.filter((e) => e.kind === 'duplicate').length).toBe(1200 - 48 - expected.size)
		// line numbers: row i sits on line i + 2
		expect(errors.find((e) => e.email === 'broken-24')!.line).toBe(26)
		expect(await listRow(listId)).toMatchObject({ status: 2, found: expected.size, progress: 100 })
		state = await db
			.selectFrom('csv_imports')
			.selectAll()
			.where('list_id', '=', listId)
			.executeTakeFirstOrThrow()
		expect(state).toMatchObject({
			rows_done: 1200,
			imported: expected.size,
			invalid: 48,
			duplicates: 1200 - 48 - expected.size,
		})
		// a rerun of a finished import changes nothing
		await runCsvImport(listId)
		expect((await leadsOf(listId)).length).toBe(expected.size)
	})

	test('an address already in the list is found even on the fast path, and non-ASCII ones by PostgreSQL', async () => {
		importTuning.batchRows = 3
		const uploaded = await upload(
			owner,
			'email\nfirst@example.com\ntaken@example.com\nJOSÉ@exämple.com\nlast@example.com\njosé@EXÄMPLE.com\n',
		)
		const listId = await startByHand(owner, uploaded)
		// another writer put one of the file's addresses in the list before the job ran
		await db
			.insertInto('leads')
			.values({ list_id: listId, user_id: owner.accountId, email: 'Taken@Example.com' })
			.execute()
		await runCsvImport(listId)
		const emails = (await leadsOf(listId)).map((l) => l.email).sort()
		// kept in lower case (decision 0081)
		expect(emails).toEqual([
			'Taken@Example.com',
			'first@example.com',
			'josé@exämple.com',
			'last@example.com',
		])
		expect((await errorsOf(listId)).map((e) => [e.line, e.kind])).toEqual([
			[3, 'duplicate'],
			[6, 'duplicate'],
		])
		expect(await listRow(listId)).toMatchObject({ status: 2, found: 3 })
	})

	test('two workers on the same import never write a row twice', async () => {
		importTuning.batchRows = 20
		importTuning.chunkBytes = 512
		const lines = ['email']
		for (let i = 0; i < 400; i++) lines.push(`twin${i}@example.com`)
		const uploaded = await upload(owner, `${lines.join('\n')}\n`)
		const listId = await startByHand(owner, uploaded)
		await Promise.allSettled([runCsvImport(listId), runCsvImport(listId)])
		await runCsvImport(listId)
		expect((await leadsOf(listId)).length).toBe(400)
		expect(await errorsOf(listId)).toEqual([])
		expect(await listRow(listId)).toMatchObject({ status: 2, found: 400 })
	})
	test('a big list asks for its page marks as it finishes; a small one does not', async () => {
		const marksOf = (listId: string) =>
			db
				.selectFrom('lead_page_marks')
				.select(['sort', 'found', 'built_at'])
				.where('list_id', '=', listId)
				.execute()
		const csvOf = (n: number, prefix: string) =>
			`email\n${Array.from({ length: n }, (_, i) => `${prefix}${i}@example.com`).join('\n')}\n`
		const big = await startByHand(owner, await upload(owner, csvOf(10_050, 'big')))
		await runCsvImport(big)
		expect((await listRow(big)).status).toBe(2)
		// asked for (a job queued), so the first typed page far into the list finds them built
		expect(await marksOf(big)).toEqual([{ sort: 'added', found: 10_050, built_at: null }])
		const { rows } = await sql<{ n: number }>`
			select count(*)::int as n from pgboss.job
			where name = 'lead-page-marks' and data->>'listId' = ${big}`.execute(db)
		expect(rows[0]!.n).toBe(1)

		const small = await startByHand(owner, await upload(owner, csvOf(300, 'small')))
		await runCsvImport(small)
		expect((await listRow(small)).status).toBe(2)
		expect(await marksOf(small)).toEqual([])
	})
})

describe('the csv-import job', () => {
	test('imports through the worker: BOM, ; delimiter, multi-line cells, invalid and duplicate rows by line', async () => {
		const csv =
			'\uFEFFEmail;First Name;Last Name;Company;Notes\r\n' + // line 1
			'ada@example.com;Ada;Lovelace;Analytical;"first line\r\nsecond line"\r\n' + // lines 2-3
			'not-an-email;Bob;B;Acme;\r\n' + // line 4
			'\r\n' + // line 5 (blank)
			'ADA@example.com;Ada;Again;X;\r\n' + // line 6 duplicate
			'grace@example.com;Grace;Hopper\r\n' + // line 7, fewer cells
			';No;Email;Co;\r\n' + // line 8
			'"=cmd@example.com";"=SUM(A1)";"+1";"-2";"@x"\r\n' // line 9
		const listId = await importThroughWorker(owner, csv)
		const list = await listRow(listId)
		expect(list).toMatchObject({
			status: 2,
			found: 3,
			requested: 6,
			progress: 100,
			source_type: 'upload',
			workspace_id: workspaceId,
			file_name: 'leads.csv',
		})
		const leads = await leadsOf(listId)
		expect(leads.map((l) => l.email)).toEqual([
			'ada@example.com',
			'grace@example.com',
			'=cmd@example.com',
		])
		expect(leads[0]).toMatchObject({
			first_name: 'Ada',
			last_name: 'Lovelace',
			company_name: 'Analytical',
			data: { Notes: 'first line\r\nsecond line' },
		})
		expect(leads[1]).toMatchObject({ first_name: 'Grace', last_name: 'Hopper', company_name: null })
		expect(await errorsOf(listId)).toEqual([
			{ line: 4, kind: 'invalid', email: 'not-an-email', message: 'Not a valid email address' },
			{
				line: 6,
				kind: 'duplicate',
				email: 'ada@example.com',
				message: 'Duplicate: an earlier row has this email address',
			},
			{ line: 8, kind: 'invalid', email: null, message: 'No email address' },
		])
		// the import report and its CSV
		const report = await importReport(owner, listId, 0)
		expect(report.summary).toMatchObject({ imported: 3, invalid: 2, duplicates: 1, rowsDone: 6 })
		const reportCsv = parse(await text((await streamImportErrorsCsv(owner, listId)).stream), {
			bom: true,
		}) as string[][]
		expect(reportCsv[0]).toEqual(['line', 'problem', 'email', 'reason'])
		expect(reportCsv.slice(1).map((r) => r[0])).toEqual(['4', '6', '8'])
		// the file is gone once the import ends
		expect(readdirSync(path.join(uploadsRoot(), 'imports'))).not.toContain(`${listId}.csv`)
	})

	test('a list whose rows are all invalid fails with the reason', async () => {
		const listId = await importThroughWorker(owner, 'email,name\nnope,A\nstill nope,B\n')
		expect(await listRow(listId)).toMatchObject({
			status: 3,
			found: 0,
			error: 'No row had a valid email address that was not already in the list.',
		})
	})

	test('the worker retries a crashed import and it ends with every row once', async () => {
		workers ??= await startWorkers({ concurrency: 1, drainSeconds: 5 })
		importTuning.batchRows = 30
		importTuning.chunkBytes = 700
		const lines = ['email,company']
		for (let i = 0; i < 300; i++) lines.push(`retry${i}@example.com,Co ${i}`)
		const uploaded = await upload(owner, `${lines.join('\n')}\n`)
		let crashes = 0
		importHooks.afterCommit = (_id, batch) => {
			if (batch === 3 && crashes++ === 0) throw new Error('worker died')
		}
		const { listId } = await startCsvImport(owner, mappingFrom(uploaded), workspaceId)
		await expect
			.poll(async () => (await listRow(listId)).status, { timeout: 30_000, interval: 250 })
			.toBe(2)
		// the hook ran in the crashed attempt and again in the retry, which went on
		expect(crashes).toBe(2)
		expect((await leadsOf(listId)).length).toBe(300)
	})
})

describe('export and access', () => {
	test('the CSV export escapes formulas and adds the data keys', async () => {
		const listId = await importThroughWorker(
			owner,
			'email,first_name,last_name,company,phone,Score\n' +
				'=1+2@example.com,=HYPERLINK("x"),+cmd,-minus,@sum,"7,5"\n' +
				'plain@example.com,"Multi\nline",O\'Brien,"Quote ""me""",\t tab,\n',
		)
		const download = await streamListCsv(owner, listId)
		expect(download.fileName).toBe('leads.csv')
		const bytes = Buffer.from(await new Response(download.stream).arrayBuffer())
		expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
		const body = bytes.toString('utf8')
		const records = parse(body, { bom: true }) as string[][]
		expect(records[0]).toEqual([
			'email',
			'first_name',
			'last_name',
			'title',
			'company_name',
			'company_domain',
			'linkedin_url',
			'location',
			'phone',
			'email_status',
			'Score',
		])
		expect(records[1]).toEqual([
			"'=1+2@example.com",
			'\'=HYPERLINK("x")',
			"'+cmd",
			'',
			"'-minus",
			'',
			'',
			'',
			"'@sum",
			'',
			'7,5',
		])
		expect(records[2]!.slice(0, 5)).toEqual([
			'plain@example.com',
			'Multi\nline',
			"O'Brien",
			'',
			'Quote "me"',
		])
	})

	test("another account's list is a 404 for the page, the exports, the report and delete", async () => {
		const listId = await importThroughWorker(owner, 'email\nmine@example.com\n')
		const stranger = await insertUser(db)
		await insertSubscription(db, stranger.id)
		const other = await contextOf(db, stranger)
		expect(await outcomeOf(() => listLeadsPage(other, listId, new URLSearchParams()))).toBe(404)
		expect(await outcomeOf(() => streamListCsv(other, listId))).toBe(404)
		expect(await outcomeOf(() => importReport(other, listId, 0))).toBe(404)
		expect(await outcomeOf(() => streamImportErrorsCsv(other, listId))).toBe(404)
		expect(await outcomeOf(() => deleteLeadList(other, listId))).toBe(404)
		expect(await outcomeOf(() => streamCompanyListCsv(other, listId))).toBe(404)
		expect(await outcomeOf(() => listLeadsPage(other, 'not-a-uuid', new URLSearchParams()))).toBe(
			404,
		)
		// a member limited to another workspace does not see it either
		const elsewhere = await insertWorkspace(db, owner.accountId, 'Elsewhere')
		const member = await insertMember(
			db,
			{ id: owner.accountId, email: owner.user.email },
			{
				workspaceIds: [elsewhere],
			},
		)
		const memberContext = await contextOf(db, member)
		expect(await outcomeOf(() => streamListCsv(memberContext, listId))).toBe(404)
		// the owner still can
		expect(await outcomeOf(() => listLeadsPage(owner, listId, new URLSearchParams()))).toBe('ok')
	})

	test('a company list exports as CSV too', async () => {
		const list = await db
			.insertInto('company_scraping_list')
			.values({
				user_id: owner.accountId,
				workspace_id: workspaceId,
				name: 'Acme targets',
				source_type: 'domains',
			})
			.returning('id')
			.executeTakeFirstOrThrow()
		await db
			.insertInto('companies')
			.values([
				{
					list_id: list.id,
					user_id: owner.accountId,
					name: '=Acme',
					domain: 'acme.com',
					employees: 12,
					data: JSON.stringify({ tech: 'React' }),
				},
				{ list_id: list.id, user_id: owner.accountId, name: 'Beta', domain: 'beta.io' },
			])
			.execute()
		const download = await streamCompanyListCsv(owner, list.id)
		expect(download.fileName).toBe('Acme-targets.csv')
		const records = parse(await text(download.stream), { bom: true }) as string[][]
		expect(records[0]).toEqual([
			'name',
			'domain',
			'industry',
			'employees',
			'location',
			'linkedin_url',
			'description',
			'tech',
		])
		expect(
			records
				.slice(1)
				.map((r) => [r[0], r[3], r[7]])
				.sort(),
		).toEqual([
			["'=Acme", '12', 'React'],
			['Beta', '', ''],
		])
	})
})

describe('the list page', () => {
	test('pages by keyset in both directions, sorts and filters on the server', async () => {
		const lines = ['email,first_name,last_name,company']
		for (let i = 0; i < 130; i++) {
			lines.push(
				`p${String(i).padStart(3, '0')}@example.com,F${i % 7},L${129 - i},${i % 2 ? 'Odd' : 'Even'} Co`,
			)
		}
		const listId = await importThroughWorker(owner, `${lines.join('\n')}\n`)
		const walk = async (params: Record<string, string>) => {
			const seen: string[] = []
			let search = new URLSearchParams(params)
			for (;;) {
				const page = await listLeadsPage(owner, listId, search)
				seen.push(...page.leads.map((l) => l.email))
				if (!page.next) return { seen, last: page }
				search = new URLSearchParams({
					...params,
					page: String(page.next.page),
					after: page.next.after,
				})
			}
		}
		const added = await walk({})
		expect(added.seen).toEqual(lines.slice(1).map((l) => l.split(',')[0]))
		expect(added.last.total).toBe(130)

		const byLastDesc = await walk({ sort: 'last_name', dir: 'desc' })
		const expectedLast = lines
			.slice(1)
			.map((l) => l.split(','))
			.sort((a, b) => (a[2]!.toLowerCase() < b[2]!.toLowerCase() ? 1 : -1))
			.map((r) => r[0])
		expect(byLastDesc.seen).toEqual(expectedLast)

		// back from the last page by the `before` cursors
		let page = byLastDesc.last
		const backwards: string[] = [...page.leads.map((l) => l.email)]
		while (page.previous) {
			const search = new URLSearchParams({
				sort: 'last_name',
				dir: 'desc',
				page: String(page.previous.page),
			})
			if (page.previous.before) search.set('before', page.previous.before)
			page = await listLeadsPage(owner, listId, search)
			backwards.unshift(...page.leads.map((l) => l.email))
		}
		expect(backwards).toEqual(expectedLast)

		const odd = await walk({ q: 'odd', sort: 'email' })
		expect(odd.seen.length).toBe(65)
		expect(odd.last.total).toBeNull()
		const one = await listLeadsPage(owner, listId, new URLSearchParams({ q: 'p007@' }))
		expect(one.leads.map((l) => l.email)).toEqual(['p007@example.com'])
		const fullName = await listLeadsPage(owner, listId, new URLSearchParams({ q: 'f3 l12' }))
		expect(
			fullName.leads.map((l) => `${l.first_name} ${l.last_name}`).every((n) => /^F3 L12/.test(n)),
		).toBe(true)
		// a LIKE wildcard is searched for literally
		expect((await listLeadsPage(owner, listId, new URLSearchParams({ q: '%' }))).leads).toEqual([])
	})
})
