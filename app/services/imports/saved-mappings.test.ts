import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { insertSubscription, insertUser } from '../../../tests/support/factories.ts'
import { contextOf, insertWorkspace } from '../../../tests/support/team.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import type { MappingInput } from './mapping.ts'
import { mappingStepFor } from './saved-mappings.server.ts'
import { startCsvImport } from './start-import.server.ts'
import { receiveCsvUpload } from './uploads.server.ts'

process.env.DATA_DIR = mkdtempSync(path.join(tmpdir(), 'leadsmith-saved-mapping-test-'))
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

function upload(account: Account, content: string) {
	return receiveCsvUpload({
		stream: Readable.from([Buffer.from(content)]),
		fileName: 'leads.csv',
		accountId: account.accountId,
		maxBytes: 1 << 20,
	})
}

describe('saved column mappings', () => {
	test('the next file with the same headers maps itself as the last one was mapped', async () => {
		const first = await upload(owner, 'Mail,Who,Org,Memo\nada@example.com,Ada,Acme,x\n')
		// nothing saved yet: the guess (Org is not a known company header)
		const guessed = await mappingStepFor(owner.accountId, first.head)
		expect(guessed.saved).toBe(false)
		expect(guessed.guess.company_name).toBeUndefined()
		await startCsvImport(
			owner,
			{
				intent: 'import',
				uploadId: first.id,
				name: 'First',
				hasHeader: true,
				keepExtra: false,
				email: 0,
				first_name: 1,
				company_name: 2,
			} as MappingInput,
			workspaceId,
		)

		// the same headers, written differently
		const second = await upload(owner, ' mail ,WHO,org,MEMO\ngrace@navy.mil,Grace,Navy,y\n')
		const step = await mappingStepFor(owner.accountId, second.head)
		expect(step.saved).toBe(true)
		expect(step.guess).toMatchObject({ email: 0, first_name: 1, company_name: 2 })
		expect(step.keepExtra).toBe(false)

		// other headers, or another account: the guess
		const other = await upload(owner, 'Mail,Who,Org\ngrace@navy.mil,Grace,Navy\n')
		expect((await mappingStepFor(owner.accountId, other.head)).saved).toBe(false)
		const theirs = await upload(stranger, 'Mail,Who,Org,Memo\nlinus@kernel.org,Linus,Linux,z\n')
		expect((await mappingStepFor(stranger.accountId, theirs.head)).saved).toBe(false)
	})
})
