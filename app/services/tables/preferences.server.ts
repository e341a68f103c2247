import type { Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { forbidden } from '../../utils/http-errors.server.ts'
import type { Density } from './schemas.ts'

export type TablePreferences = { hiddenColumns: string[]; density: Density }

const DEFAULTS: TablePreferences = { hiddenColumns: [], density: 'comfortable' }

/**
 * How this user last set up this table: its hidden columns and density (decision 0080); until
 * they choose, the table's own `defaults` (columns hidden at first, e.g. so a wide table fits).
 */
export async function tablePreferences(
	userId: string,
	table: string,
	db: Kysely<DB> = defaultDb,
	defaults: Partial<TablePreferences> = {},
): Promise<TablePreferences> {
	const row = await db
		.selectFrom('table_preferences')
		.select(['hidden_columns', 'density'])
		.where('user_id', '=', userId)
		.where('table_key', '=', table)
		.executeTakeFirst()
	if (!row) return { ...DEFAULTS, ...defaults }
	return { hiddenColumns: row.hidden_columns, density: row.density as Density }
}

/** Remembers the columns and density a user chose for a table (one row per user and table). */
export async function saveTablePreferences(
	account: AccountContext | null,
	input: { table: string; columns: string[]; show: string[]; density: Density },
	db: Kysely<DB> = defaultDb,
) {
	if (!account) forbidden('Sign in first.')
	const shown = new Set(input.show)
	const hidden = [...new Set(input.columns.filter((c) => !shown.has(c)))]
	await db
		.insertInto('table_preferences')
		.values({
			user_id: account.user.id,
			table_key: input.table,
			hidden_columns: hidden,
			density: input.density,
		})
		.onConflict((oc) =>
			oc.columns(['user_id', 'table_key']).doUpdateSet({
				hidden_columns: hidden,
				density: input.density,
				updated_at: new Date(),
			}),
		)
		.execute()
	return { hiddenColumns: hidden, density: input.density }
}
