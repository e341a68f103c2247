import { randomBytes } from 'node:crypto'
import { db } from '../../db/index.server.ts'
import { migrateToLatest } from '../../db/migrate.ts'
import { ensurePlatformAdmin, seedPricePlans } from '../../db/seed.ts'
import { getConfig } from '../config.server.ts'
import { getAuthAdmin } from '../services/auth/endpoint.server.ts'

/**
 * Migrations and seed data at start. The platform admin comes from
 * ADMIN_EMAIL/ADMIN_PASSWORD, or is generated once when there is no admin yet
 * (its password is returned so it can be printed that one time).
 */
export async function prepareDatabase() {
	const config = getConfig()
	await migrateToLatest(db)
	await seedPricePlans(db)
	const admin = await ensurePlatformAdmin(db, await getAuthAdmin(), {
		email: config.ADMIN_EMAIL,
		password: config.ADMIN_PASSWORD,
		generatePassword: () => `${randomBytes(9).toString('base64url')}9a`,
	})
	return { admin }
}
