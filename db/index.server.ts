import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import { singleton } from '../app/utils/singleton.server.ts'
import type { DB } from './schema.ts'

// int8 and numeric come back as strings by default; counts and money here fit in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v))
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v))

export type Database = Kysely<DB>

// Statements sent on (nearly) every request, keyed by their exact SQL text: sent as named
// prepared statements, so each connection parses and plans them once instead of every time.
const preparedNames = new Map<string, string>()

/** Sends `text` as the named prepared statement `name` from now on (per connection, once). */
export function prepareStatement(name: string, text: string) {
	if (!preparedNames.has(text)) preparedNames.set(text, name)
}

class PreparingClient extends pg.Client {
	constructor(config?: string | pg.ClientConfig) {
		super(config)
		const query = this.query.bind(this) as (...args: unknown[]) => unknown
		this.query = ((text: unknown, values: unknown, ...rest: unknown[]) => {
			const name = typeof text === 'string' ? preparedNames.get(text) : undefined
			return name && Array.isArray(values)
				? query({ name, text, values }, ...rest)
				: query(text, values, ...rest)
		}) as pg.Client['query']
	}
}

export function createPool(connectionString: string, options: { max?: number } = {}) {
	const pool = new pg.Pool({ connectionString, max: options.max ?? 10, Client: PreparingClient })
	pool.on('error', (error) => console.error('postgres pool error', error))
	return pool
}

export function createDb(connectionString: string | pg.Pool, options: { max?: number } = {}) {
	const pool =
		typeof connectionString === 'string' ? createPool(connectionString, options) : connectionString
	return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) })
}

function databaseUrl() {
	const url = process.env.DATABASE_URL
	if (!url) throw new Error('DATABASE_URL is not set: start the app through server.ts or set it')
	return url
}

/** The process-wide pg pool (for the few places that need raw pg: COPY, rate limits). */
export function getPool(): pg.Pool {
	return singleton('pg-pool', () => createPool(databaseUrl(), { max: 20 }))
}

function instance() {
	return singleton('db', () => createDb(getPool()))
}

/**
 * The process-wide Kysely instance, created on first use so that server.ts can
 * start the embedded server (and set DATABASE_URL) before anything connects.
 */
export const db: Database = new Proxy({} as Database, {
	get(_, property) {
		const real = instance()
		const value = Reflect.get(real, property, real)
		return typeof value === 'function' ? value.bind(real) : value
	},
})
