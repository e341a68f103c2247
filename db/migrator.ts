import { promises as fs } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Kysely } from 'kysely'
import { FileMigrationProvider, Migrator } from 'kysely/migration'

const migrationFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations')

/** Runs every migration not run yet (db/migrations), in name order. */
export async function migrateToLatest(db: Kysely<any>) {
	const migrator = new Migrator({
		db,
		provider: new FileMigrationProvider({ fs, path, migrationFolder }),
	})
	const { error, results } = await migrator.migrateToLatest()
	for (const r of results ?? []) {
		if (r.status === 'Error') console.error(`migration ${r.migrationName} failed`)
	}
	if (error) throw error
	return results ?? []
}
