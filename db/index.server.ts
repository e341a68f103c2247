import { AsyncLocalStorage } from 'node:async_hooks'
import { createHash } from 'node:crypto'
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import { isDatabaseConnectionError } from './errors.ts'
import { peekSingleton, singleton } from '../app/utils/singleton.server.ts'
import type { DB } from './schema.ts'

// int8 and numeric come back as strings by default; counts and money here fit in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v))
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v))

export type Database = Kysely<DB>

// Statements sent on (nearly) every request, keyed by their exact SQL text: sent as named
// prepared statements, so each connection parses and plans them once instead of every time.
// One map per process: server.ts makes the pool from this module as Node loads it, while the
// routes' code registers its statements from the copy inside the server bundle; with a map per
// copy, the pool's clients never saw those names and PostgreSQL planned them on every call.
const preparedNames = singleton('prepared-statement-names', () => new Map<string, string>())

/**
 * Sends `text` as a named prepared statement from now on (per connection, once): named `name`,
 * or, for a statement with several forms of its text, `name_<hash of the text>` (hashed once).
 */
export function prepareStatement(name: string, text: string, { perText = false } = {}) {
	if (preparedNames.has(text)) return
	const suffix = perText ? `_${createHash('sha1').update(text).digest('hex').slice(0, 16)}` : ''
	preparedNames.set(text, `${name}${suffix}`)
}

class PreparingClient extends pg.Client {
	/** the connection failed (server gone, backend terminated): never back into the pool */
	#lost = false
	#release: ((error?: Error | boolean) => void) | undefined

	constructor(config?: string | pg.ClientConfig) {
		super(config)
		// A connection the server drops (restart, admin shutdown) emits 'error' even while
		// checked out of the pool; unheard, that would end the process. The query in flight
		// fails on its own, and the pool discards the client when it comes back.
		this.on('error', (error) => {
			this.#lost = true
			console.warn('postgres connection lost:', error.message)
		})
		const query = this.query.bind(this) as (...args: unknown[]) => unknown
		this.query = ((text: unknown, values: unknown, ...rest: unknown[]) => {
			const name = typeof text === 'string' ? preparedNames.get(text) : undefined
			const result =
				name && Array.isArray(values)
					? query({ name, text, values }, ...rest)
					: query(text, values, ...rest)
			if (result instanceof Promise) {
				result.catch((error: unknown) => {
					if (isDatabaseConnectionError(error)) this.#lost = true
				})
			}
			return result
		}) as pg.Client['query']
	}

	// pg-pool sets `release` at each checkout (Kysely calls it with `false`); a lost connection is handed back as broken,
	// so the next checkout gets a working one instead of the same dead socket.
	get release() {
		return this.#release
	}
	set release(release: ((error?: Error | boolean) => void) | undefined) {
		this.#release =
			release &&
			((error) => release(error || (this.#lost ? new Error('connection lost') : undefined)))
	}
}

export type PoolOptions = {
	max?: number
	/** how long to wait for a free connection (or a new one) before the query fails */
	connectionTimeoutMillis?: number
}

export function createPool(connectionString: string, options: PoolOptions = {}) {
	const pool = new pg.Pool({
		connectionString,
		max: options.max ?? 10,
		connectionTimeoutMillis: options.connectionTimeoutMillis ?? 0,
		// pg-pool closes a connection idle for 10 s by default: after any lull the next pages paid
		// for new backends, which prepare and plan every statement afresh (PostgreSQL plans a
		// prepared statement's first five calls on a connection one by one, 1-12 ms each for the
		// request context's). Kept as HikariCP and Rails keep theirs, for minutes.
		idleTimeoutMillis: 5 * 60_000,
		// ...without holding a script's exit for them
		allowExitOnIdle: true,
		Client: PreparingClient,
	})
	pool.on('error', (error) => console.warn('postgres idle connection lost:', error.message))
	// pool.end() resolves before its connections have said goodbye to the server: closing waits
	// for them, or a database stopped right after would cut them (and they would say so).
	let open = 0
	const waiting = new Set<() => void>()
	pool.on('connect', () => open++)
	pool.on('remove', () => {
		open--
		if (open > 0) return
		for (const resolve of waiting) resolve()
		waiting.clear()
	})
	connectionsClosed.set(pool, () =>
		open === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiting.add(resolve)),
	)
	return pool
}

const connectionsClosed = new WeakMap<pg.Pool, () => Promise<void>>()

export function createDb(connectionString: string | pg.Pool, options: PoolOptions = {}) {
	const pool =
		typeof connectionString === 'string' ? createPool(connectionString, options) : connectionString
	return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) })
}

function databaseUrl() {
	const url = process.env.DATABASE_URL
	if (!url) throw new Error('DATABASE_URL is not set: start the app through server.ts or set it')
	return url
}

/** Pool sizes and the connect timeout (DB_POOL_MAX, DB_JOB_POOL_MAX, DB_CONNECT_TIMEOUT_MS). */
function poolSettings() {
	const number = (name: string, fallback: number) => {
		const value = Number(process.env[name])
		return Number.isFinite(value) && value > 0 ? value : fallback
	}
	return {
		web: number('DB_POOL_MAX', 20),
		jobs: number('DB_JOB_POOL_MAX', 10),
		connectTimeoutMs: number('DB_CONNECT_TIMEOUT_MS', 5000),
	}
}

// Job work and request work draw on separate pools, so a job holding connections (a lock,
// a long COPY) never leaves pages waiting. Code running inside a job handler is in this scope.
const jobScope = singleton('db-job-scope', () => new AsyncLocalStorage<true>())

/** Runs `work` (a job handler) on the job pool. */
export function runAsJob<T>(work: () => T): T {
	return jobScope.run(true, work)
}

/** Whether the caller runs inside a job handler (else: a web request, a script). */
export const inJob = () => jobScope.getStore() === true

/**
 * The process-wide pg pool (for the few places that need raw pg: COPY, rate limits): the
 * job pool inside a job, else the web pool, whose requests wait for a connection at most
 * DB_CONNECT_TIMEOUT_MS and then fail (a 503) instead of hanging.
 */
export function getPool(): pg.Pool {
	if (inJob()) {
		// a job may wait its turn for a connection much longer than a page may
		return singleton('pg-job-pool', () => {
			const settings = poolSettings()
			return createPool(databaseUrl(), {
				max: settings.jobs,
				connectionTimeoutMillis: Math.max(settings.connectTimeoutMs, 60_000),
			})
		})
	}
	return singleton('pg-pool', () => {
		const settings = poolSettings()
		return createPool(databaseUrl(), {
			max: settings.web,
			connectionTimeoutMillis: settings.connectTimeoutMs,
		})
	})
}

function instance() {
	return inJob()
		? singleton('db-jobs', () => createDb(getPool()))
		: singleton('db', () => createDb(getPool()))
}

/**
 * Closes both pools (those that were opened). Kysely closes its pool only if it ever ran a
 * statement, and a pool may be used only through getPool() (COPY, rate limits): whatever is
 * left open is closed here, or its idle connections would outlive it until the database stops.
 */
async function destroyAll() {
	const kyselys = ['db', 'db-jobs'].map((name) => peekSingleton<Database>(name))
	await Promise.all(kyselys.map((database) => database?.destroy()))
	const pools = ['pg-pool', 'pg-job-pool'].map((name) => peekSingleton<pg.Pool>(name))
	await Promise.all(pools.map((pool) => (pool && !pool.ending ? pool.end() : undefined)))
	const closed = Promise.all(pools.map((pool) => pool && connectionsClosed.get(pool)?.()))
	// a timer that holds the process open meanwhile: idle connections do not (allowExitOnIdle)
	let timer: NodeJS.Timeout | undefined
	await Promise.race([closed, new Promise((resolve) => (timer = setTimeout(resolve, 5000)))])
	clearTimeout(timer)
}

/**
 * The process-wide Kysely instance, created on first use so that server.ts can
 * start the embedded server (and set DATABASE_URL) before anything connects.
 * Inside a job it is the job pool's; `destroy()` closes both.
 */
export const db: Database = new Proxy({} as Database, {
	get(_, property) {
		if (property === 'destroy') return destroyAll
		const real = instance()
		const value = Reflect.get(real, property, real)
		return typeof value === 'function' ? value.bind(real) : value
	},
})
