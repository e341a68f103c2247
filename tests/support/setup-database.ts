import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { afterAll, inject } from 'vitest'
import { databaseUrlFor } from '../../db/embedded.ts'
import { createDb, db } from '../../db/index.server.ts'
import { resetSingleton } from '../../app/utils/singleton.server.ts'

// Each test file gets its own database, cloned from the migrated template. By copying its
// files: the default (WAL_LOG) writes every page of the template through the WAL, which took
// about twice the CPU and 1.6 times as long for this small template (decision 0102).
const serverUrl = inject('databaseServerUrl')
const name = `test_${process.env.VITEST_POOL_ID ?? '0'}_${randomUUID().replaceAll('-', '').slice(0, 12)}`
const admin = createDb(serverUrl, { max: 1 })
await sql
	.raw(`create database ${name} template leadsmith_template strategy = file_copy`)
	.execute(admin)
await admin.destroy()

for (const key of ['db', 'db-jobs', 'pg-pool', 'pg-job-pool', 'config']) resetSingleton(key)
process.env.DATABASE_URL = databaseUrlFor(serverUrl, name)

afterAll(async () => {
	await db.destroy()
	const cleanup = createDb(serverUrl, { max: 1 })
	await sql.raw(`drop database if exists ${name} with (force)`).execute(cleanup)
	await cleanup.destroy()
})
