import { isIP } from 'node:net'
import type { RequestHandler } from 'express'
import pg from 'pg'
import { db as defaultDb } from '../../../db/index.server.ts'
import { inBackground } from '../../utils/background.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { appHostNames, isAppHost } from './app-hosts.server.ts'

export type Forward = {
	to: string
	code: 301 | 302
	keepPath: boolean
	/** the domain's subscription is paid until then (ms): forwarding stops on time, job or not */
	until: number
}

/**
 * The Host -> redirect table every request is checked against, held in memory. A change to
 * domains or their subscriptions (any process) sends NOTIFY domain_forwarding_changed (triggers,
 * see the migrations);
 * each process LISTENs and reloads on the next request. Without a listener (it failed, or
 * it is reconnecting) the table is reloaded at most every FALLBACK_MS.
 */
const FALLBACK_MS = 30_000
const LISTEN_CHANNEL = 'domain_forwarding_changed'

type State = {
	table: Map<string, Forward> | null
	loadedAt: number
	loading: Promise<Map<string, Forward>> | null
	generation: number
	listener: pg.Client | null
	listening: boolean
}

const state: State = {
	table: null,
	loadedAt: 0,
	loading: null,
	generation: 0,
	listener: null,
	listening: false,
}

/** Forget the table: the next request reloads it. */
export function invalidateForwarding() {
	state.generation++
	state.table = null
}

async function load(): Promise<Map<string, Forward>> {
	const generation = state.generation
	const rows = await defaultDb
		.selectFrom('domains')
		.select(['name', 'forward_to', 'redirect_code', 'forward_keep_path'])
		.select((eb) =>
			eb
				.selectFrom('domain_subscriptions as s')
				.select((e) => e.fn.max('s.expire_date').as('until'))
				.whereRef('s.domain_id', '=', 'domains.id')
				.where('s.status', 'in', ['active', 'past_due'])
				.as('paid_until'),
		)
		.where('forward_to', 'is not', null)
		.where('status', '=', 'active')
		// only a domain whose owner proved control of its DNS forwards (one row per name at most)
		.where('verified_at', 'is not', null)
		.execute()
	const table = new Map<string, Forward>()
	const ownHosts = appHostNames()
	for (const row of rows) {
		if (!row.paid_until) continue // only a domain with a live subscription forwards
		if (isAppHost(row.name, ownHosts)) continue // a row from before such names were refused
		table.set(row.name, {
			to: row.forward_to!,
			code: row.redirect_code === 301 ? 301 : 302,
			keepPath: row.forward_keep_path,
			until: new Date(row.paid_until).getTime(),
		})
	}
	// A change that arrived while loading wins: keep the table only if nothing changed since.
	if (generation === state.generation) {
		state.table = table
		state.loadedAt = Date.now()
	}
	return table
}

async function table() {
	const fresh = state.listening ? true : Date.now() - state.loadedAt < FALLBACK_MS
	if (state.table && fresh) return state.table
	state.loading ??= load().finally(() => {
		state.loading = null
	})
	return state.loading
}

/** LISTENs for forwarding changes from every process (best effort; the fallback TTL covers gaps). */
export async function listenForForwardingChanges(connectionString = process.env.DATABASE_URL) {
	if (!connectionString || state.listener) return
	const client = new pg.Client({ connectionString })
	state.listener = client
	const retry = () => {
		state.listening = false
		state.listener = null
		invalidateForwarding()
		setTimeout(
			() =>
				inBackground(
					listenForForwardingChanges(connectionString),
					'the forwarding listener failed',
				),
			5000,
		).unref()
	}
	client.on('notification', () => invalidateForwarding())
	client.on('error', (error) => {
		logger.warn({ err: error }, 'forwarding listener lost its connection')
		client.end().catch(() => {})
		retry()
	})
	try {
		await client.connect()
		await client.query(`LISTEN ${LISTEN_CHANNEL}`)
		state.listening = true
		invalidateForwarding()
	} catch (error) {
		logger.warn({ err: error }, 'forwarding listener could not start')
		client.end().catch(() => {})
		retry()
	}
}

export async function stopListeningForForwardingChanges() {
	const client = state.listener
	state.listener = null
	state.listening = false
	await client?.end().catch(() => {})
}

/** Where a request for `host` and `pathAndQuery` goes, or null when the host is not forwarded. */
export function redirectTarget(forward: Forward, pathAndQuery: string) {
	if (!forward.keepPath) return forward.to
	const target = new URL(forward.to)
	const incoming = new URL(pathAndQuery, 'http://x')
	const base = target.pathname.replace(/\/$/, '')
	target.pathname = base + incoming.pathname
	for (const [key, value] of incoming.searchParams) target.searchParams.append(key, value)
	return target.toString()
}

export async function findForward(host: string) {
	const name = host.toLowerCase().replace(/\.$/, '')
	// The app's own hosts are never redirected, whatever the table holds or `www.` stripping finds.
	if (isAppHost(name)) return undefined
	const forwards = await table()
	const forward =
		forwards.get(name) ?? (name.startsWith('www.') ? forwards.get(name.slice(4)) : undefined)
	// Past its paid-through time the subscription has expired, even before the renewal job says so.
	return forward && forward.until > Date.now() ? forward : undefined
}

/**
 * Express: a request whose Host is a forwarded domain gets its redirect before anything else
 * (no session, no static files, no React Router).
 */
export function forwardByHost(): RequestHandler {
	// the configuration is read once per process: not parsed again (3 URLs) on every request
	const ownHosts = appHostNames()
	return (req, res, next) => {
		const host = req.hostname
		// The app's own host (nearly every request) goes on at once, without a promise, and so
		// does an address: a forwarded domain is a name.
		if (!host || !host.includes('.') || isAppHost(host, ownHosts) || isIP(host)) return next()
		findForward(host).then(
			(forward) => {
				if (!forward) return next()
				res.set('Cache-Control', forward.code === 301 ? 'public, max-age=3600' : 'no-store')
				res.redirect(forward.code, redirectTarget(forward, req.originalUrl))
			},
			(error: unknown) => {
				logger.error({ err: error }, 'forwarding lookup failed')
				next()
			},
		)
	}
}
