import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { sql } from 'kysely'
import { beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { insertSubscription, insertUser } from '../../../tests/support/factories.ts'
import { contextOf, insertWorkspace } from '../../../tests/support/team.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { guessMapping, LEAD_FIELD_KEYS, type MappingInput } from './mapping.ts'
import { importTuning, runCsvImport } from './run-csv-import.server.ts'
import { startCsvImport } from './start-import.server.ts'
import { receiveCsvUpload } from './uploads.server.ts'

process.env.DATA_DIR = mkdtempSync(path.join(tmpdir(), 'leadsmith-normalise-test-'))
resetSingleton('config')

let owner: Awaited<ReturnType<typeof contextOf>>
let workspaceId: string

beforeAll(async () => {
	const user = await insertUser(db)
	await insertSubscription(db, user.id)
	workspaceId = await insertWorkspace(db, user.id, 'Main')
	owner = await contextOf(db, user)
})

/** Uploads, maps as guessed and runs the import job by hand; the list's leads by email. */
async function importCsv(content: string) {
	const uploaded = await receiveCsvUpload({
		stream: Readable.from([Buffer.from(content)]),
		fileName: 'leads.csv',
		accountId: owner.accountId,
		maxBytes: 1 << 20,
	})
	const guessed = guessMapping(uploaded.head[0]!, uploaded.head.slice(1))
	const input = {
		intent: 'import',
		uploadId: uploaded.id,
		name: 'Normalised',
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
		.select(['email', 'company_domain'])
		.where('list_id', '=', listId)
		.orderBy('email')
		.execute()
	const errors = await db
		.selectFrom('csv_import_errors')
		.select(['line', 'kind'])
		.where('list_id', '=', listId)
		.orderBy('line')
		.execute()
	return { leads, errors }
}

describe('normalisation at import', () => {
	test('emails are lower-cased and trimmed, company domains taken from URLs', async () => {
		importTuning.batchRows = 3
		const { leads, errors } = await importCsv(
			'Email,Website\n' +
				' ADA@Example.COM ,https://www.Acme.com/about\n' +
				'grace@navy.mil,WWW.Navy.MIL\n' +
				'linus@kernel.org,http://user@git.Kernel.org:8080/path?q=1#top\n' +
				'ken@bell-labs.com,bell-labs.com\n' +
				'JOSÉ@EXAMPLE.COM,  Exämple.COM.  \n' +
				'ada@example.com,acme.com\n' +
				'dennis@example.com,\n',
		)
		expect(leads).toEqual([
			{ email: 'ada@example.com', company_domain: 'acme.com' },
			{ email: 'dennis@example.com', company_domain: null },
			{ email: 'grace@navy.mil', company_domain: 'navy.mil' },
			{ email: 'josé@example.com', company_domain: 'exämple.com' },
			{ email: 'ken@bell-labs.com', company_domain: 'bell-labs.com' },
			{ email: 'linus@kernel.org', company_domain: 'git.kernel.org' },
		])
		// the second Ada, written in another case, is the same address
		expect(errors).toEqual([{ line: 7, kind: 'duplicate' }])
	})
})
