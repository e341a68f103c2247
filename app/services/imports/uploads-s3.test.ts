import { Readable } from 'node:stream'
import { sql } from 'kysely'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { startFakeS3, type FakeS3 } from '../../../tests/fakes/s3/server.ts'
import { insertSubscription, insertUser } from '../../../tests/support/factories.ts'
import { contextOf } from '../../../tests/support/team.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { statusOf } from '../../utils/http-errors.server.ts'
import { UploadRejected } from './csv-scan.server.ts'
import { importTuning, runCsvImport } from './run-csv-import.server.ts'
import { startCsvImport } from './start-import.server.ts'
import {
	allowCleanNow,
	cleanStalePending,
	readPendingUpload,
	receiveCsvUpload,
} from './uploads.server.ts'

// Uploads, the import job and expiry against an S3-compatible bucket (the fake in tests/fakes/s3).
let s3: FakeS3
let owner: Awaited<ReturnType<typeof contextOf>>

beforeAll(async () => {
	s3 = await startFakeS3()
	Object.assign(process.env, s3.env)
	resetSingleton('config')
	const user = await insertUser(db)
	await insertSubscription(db, user.id)
	owner = await contextOf(db, user)
})
afterAll(async () => {
	for (const key of Object.keys(s3.env)) delete process.env[key]
	resetSingleton('config')
	await s3.close()
})

const CSV = 'email,first_name\nada@example.com,Ada\ngrace@example.com,Grace\n'

function upload(content: string | Buffer) {
	return receiveCsvUpload({
		stream: Readable.from([Buffer.from(content)]),
		fileName: 'leads.csv',
		accountId: owner.accountId,
		maxBytes: 10 << 20,
	})
}

const stored = () => [...s3.objects.keys()].sort()

async function startByHand(uploadId: string) {
	const { listId } = await startCsvImport(
		owner,
		{ intent: 'import', uploadId, name: 'S3 list', hasHeader: true, keepExtra: false, email: 0 },
		null,
	)
	await sql`delete from pgboss.job where name = 'csv-import' and data->>'listId' = ${listId}`.execute(
		db,
	)
	return listId
}

const listOf = (id: string) =>
	db
		.selectFrom('processing_list')
		.select(['status', 'found', 'error'])
		.where('id', '=', id)
		.executeTakeFirstOrThrow()

test('an upload lands in the bucket, is mapped from there and imported; its file is deleted after', async () => {
	const uploaded = await upload(CSV)
	expect(stored()).toEqual([
		`uploads/pending/${uploaded.id}.csv`,
		`uploads/pending/${uploaded.id}.json`,
	])
	expect((await readPendingUpload(owner.accountId, uploaded.id)).head[1]).toEqual([
		'ada@example.com',
		'Ada',
	])
	const listId = await startByHand(uploaded.id)
	expect(stored()).toEqual([`uploads/imports/${listId}.csv`])
	await runCsvImport(listId)
	expect(await listOf(listId)).toMatchObject({ status: 2, found: 2 })
	expect(stored()).toEqual([])
})

test('a storage that refuses the upload gives a message at the field, and keeps nothing', async () => {
	s3.failNext({ status: 403, code: 'AccessDenied', method: 'PUT' })
	const refused = await upload(CSV).catch((error: unknown) => error)
	expect(refused).toBeInstanceOf(UploadRejected)
	expect((refused as UploadRejected).status).toBe(503)
	expect((refused as UploadRejected).message).toBe(
		'The file could not be stored (file storage answered 403 AccessDenied). Try again in a few minutes; if it keeps failing, tell your platform admin.',
	)
	expect(stored()).toEqual([])

	// the file's own fault is named as such, even though the storage upload stopped too
	const notUtf8 = await upload(Buffer.from([0x65, 0x6d, 0x61, 0x69, 0x6c, 0x0a, 0xff, 0xfe, 0x0a]))
		.then(() => null)
		.catch((error: unknown) => error as UploadRejected)
	expect(notUtf8?.message).toMatch(/UTF-8/)
	expect(stored()).toEqual([])
	expect(s3.uploads.size).toBe(0)
})

test('pending uploads expire after a day in the bucket as on disk', async () => {
	const old = await upload(CSV)
	const fresh = await upload(CSV)
	for (const ext of ['csv', 'json']) s3.age(`uploads/pending/${old.id}.${ext}`, 25 * 3600 * 1000)
	allowCleanNow()
	await cleanStalePending()
	expect(stored()).toEqual([`uploads/pending/${fresh.id}.csv`, `uploads/pending/${fresh.id}.json`])
	const gone = await readPendingUpload(owner.accountId, old.id).catch((e: unknown) => e)
	expect(statusOf(gone)).toBe(404)
	// another account never sees this one's upload
	const stranger = await readPendingUpload('00000000-0000-4000-8000-000000000000', fresh.id).catch(
		(e: unknown) => e,
	)
	expect(statusOf(stranger)).toBe(404)
	// a storage that refuses the read: 503 with the reason, not a page crash
	s3.failNext({ status: 403, code: 'AccessDenied', method: 'GET' })
	const refused = await readPendingUpload(owner.accountId, fresh.id).catch((e: unknown) => e)
	expect(statusOf(refused)).toBe(503)
	expect((refused as { data: string }).data).toBe(
		'The uploaded file cannot be read right now (file storage answered 403 AccessDenied). Try again in a few minutes.',
	)
})

test('the import job: a file gone from the bucket, and a storage that keeps failing, end with a reason', async () => {
	const first = await upload(CSV)
	const gone = await startByHand(first.id)
	s3.objects.delete(`uploads/imports/${gone}.csv`)
	await runCsvImport(gone)
	expect(await listOf(gone)).toMatchObject({
		status: 3,
		error: 'The uploaded file is no longer available. Upload it again.',
	})

	importTuning.chunkBytes = 1 << 20
	const second = await upload(CSV)
	const failing = await startByHand(second.id)
	s3.failNext({ status: 503, code: 'SlowDown', method: 'GET', count: 20 })
	// the last attempt: the job does not come back, so the list says why
	await expect(runCsvImport(failing, { retryCount: 5 })).rejects.toThrow('file storage failed')
	expect(await listOf(failing)).toMatchObject({
		status: 3,
		error:
			'The uploaded file could not be read from the file storage (file storage answered 503 SlowDown). Upload it again.',
	})
	expect(stored()).not.toContain(`uploads/imports/${failing}.csv`)
})
