import { chmod, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { TestProject } from 'vitest/node'
import { startEmbeddedPostgres, databaseUrlFor } from '../../db/embedded.ts'
import { createDb } from '../../db/index.server.ts'
import { migrateToLatest } from '../../db/migrate.ts'
import { seedPricePlans } from '../../db/seed.ts'
import { freePort } from './free-port.ts'

export const TEMPLATE_DATABASE = 'leadsmith_template'

declare module 'vitest' {
	export interface ProvidedContext {
		databaseServerUrl: string
	}
}

/**
 * One real PostgreSQL server for the run (embedded, or TEST_DATABASE_URL's server),
 * and a migrated template database that each test file clones.
 */
export default async function setup(project: TestProject) {
	let serverUrl = process.env.TEST_DATABASE_URL
	let stop = async () => {}
	let dir: string | undefined
	if (!serverUrl) {
		dir = await mkdtemp(path.join(tmpdir(), 'leadsmith-test-pg-'))
		await chmod(dir, 0o755)
		const pg = await startEmbeddedPostgres({
			dir: path.join(dir, 'data'),
			port: await freePort(),
			persistent: false,
			// a throwaway server: speed over crash safety (never the app's default)
			unsafeFastWrites: true,
		})
		serverUrl = pg.url
		stop = pg.stop
	}
	const admin = createDb(serverUrl, { max: 1 })
	const { sql } = await import('kysely')
	await sql.raw(`drop database if exists ${TEMPLATE_DATABASE} with (force)`).execute(admin)
	await sql.raw(`create database ${TEMPLATE_DATABASE}`).execute(admin)
	await admin.destroy()

	const template = createDb(databaseUrlFor(serverUrl, TEMPLATE_DATABASE), { max: 1 })
	await migrateToLatest(template)
	await seedPricePlans(template)
	await template.destroy()

	project.provide('databaseServerUrl', serverUrl)
	return async () => {
		await stop()
		if (dir) await rm(dir, { recursive: true, force: true })
	}
}
