// npm run db:migrate. The migrator itself is db/migrator.ts: db/start.ts runs it at start, and
// this script starts the database through db/with-database.ts (which imports db/start.ts).
import { migrateToLatest } from './migrator.ts'

export { migrateToLatest }

if (import.meta.main) {
	const { withDatabase } = await import('./with-database.ts')
	await withDatabase(async (db) => {
		const results = await migrateToLatest(db)
		console.log(
			results.length
				? results.map((r) => `${r.status}: ${r.migrationName}`).join('\n')
				: 'up to date',
		)
	})
}
