// Test harness: the service behind a real node:http server on 127.0.0.1, as the app mounts it.
import http from 'node:http'
import { Kysely, PostgresDialect } from 'kysely'
import { createRequestListener } from '@remix-run/node-fetch-server'
import { createClient, type SupabaseClient, type SupportedStorage } from '@supabase/supabase-js'
import { parseEnv } from '../config.server.ts'
import { createPool } from '../../db/index.server.ts'
import type { DB } from '../../db/schema.ts'
import { createMailer } from '../services/mail/mailer.server.ts'
import { freePort } from '../../tests/support/free-port.ts'
import { CLIENT_IP_HEADER, createAuthService, type AuthServiceOptions } from './service.server.ts'

export type TestAuthServer = Awaited<ReturnType<typeof startTestAuthServer>>

export async function startTestAuthServer(
	env: Record<string, string> = {},
	options: Partial<Omit<AuthServiceOptions, 'db' | 'config' | 'mailer' | 'now'>> = {},
) {
	const port = await freePort()
	const url = `http://127.0.0.1:${port}`
	const { SMTP_URL: _smtp, ...processEnv } = process.env
	const config = parseEnv({ ...processEnv, APP_URL: url, ...env })
	const pool = createPool(process.env.DATABASE_URL!, { max: 5 })
	// Every query of the service goes through this instance and is counted.
	const queries: string[] = []
	const db = new Kysely<DB>({
		dialect: new PostgresDialect({ pool }),
		log(event) {
			queries.push(event.query.sql)
		},
	})
	let offsetMs = 0
	const clock = {
		now: () => new Date(Date.now() + offsetMs),
		advance(seconds: number) {
			offsetMs += seconds * 1000
		},
	}
	const service = await createAuthService({
		db,
		config,
		mailer: createMailer(config, db),
		now: clock.now,
		bcryptCost: 4,
		log: () => {},
		...options,
	})
	const server = http.createServer(
		createRequestListener((request: Request, client: { address: string }) => {
			// What the Express layer does: the socket says who the client is.
			request.headers.set(CLIENT_IP_HEADER, client.address)
			return service.fetch(request)
		}),
	)
	await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))

	const clientOptions = { auth: { persistSession: false, autoRefreshToken: false } }
	return {
		url,
		config,
		service,
		db,
		clock,
		queries,
		/**
		 * a browser-like client with the anon key; `from` another loopback address (127.0.0.2 …)
		 * makes it a client at another IP
		 */
		client(from?: string): SupabaseClient {
			return createClient(url, service.anonKey, {
				...clientOptions,
				...(from ? { global: { fetch: fetchFrom(from) } } : {}),
			})
		},
		/** a PKCE client keeping its verifier in `storage` (as @supabase/ssr does in cookies) */
		pkceClient(storage: SupportedStorage = memoryStorage()): SupabaseClient {
			return createClient(url, service.anonKey, {
				auth: {
					flowType: 'pkce',
					storage,
					persistSession: true,
					autoRefreshToken: false,
					detectSessionInUrl: false,
				},
			})
		},
		/** the service-role client for admin calls */
		admin(): SupabaseClient {
			return createClient(url, service.serviceRoleKey, clientOptions)
		},
		/** the newest mail to `to` in the mailbox table */
		async lastMail(to: string) {
			const row = await db
				.selectFrom('mailbox')
				.selectAll()
				.where('to_address', '=', to)
				.orderBy('id', 'desc')
				.executeTakeFirst()
			if (!row) throw new Error(`no mail to ${to}`)
			const link = /https?:\/\/\S+\/auth\/(v1\/verify|confirm)\?\S+/.exec(row.text_body)?.[0]
			const code = /code: (\d{6})/.exec(row.text_body)?.[1]
			return { ...row, link, code }
		},
		async mailCount(to: string) {
			const row = await db
				.selectFrom('mailbox')
				.select((eb) => eb.fn.countAll<number>().as('n'))
				.where('to_address', '=', to)
				.executeTakeFirstOrThrow()
			return Number(row.n)
		},
		async close() {
			server.closeAllConnections()
			await new Promise((resolve) => server.close(resolve))
			await db.destroy()
		},
	}
}

/** fetch over a socket bound to `localAddress`: the server sees the request come from there. */
export function fetchFrom(localAddress: string): typeof fetch {
	return async (input, init) => {
		const request = new Request(input, init)
		const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined
		return new Promise<Response>((resolve, reject) => {
			const outgoing = http.request(
				request.url,
				{ method: request.method, headers: Object.fromEntries(request.headers), localAddress },
				(incoming) => {
					const chunks: Buffer[] = []
					incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
					incoming.on('error', reject)
					incoming.on('end', () => {
						const status = incoming.statusCode ?? 500
						const headers = new Headers()
						for (const [name, value] of Object.entries(incoming.headers))
							for (const one of [value ?? []].flat()) headers.append(name, one)
						const empty = status === 204 || status === 304
						resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers }))
					})
				},
			)
			outgoing.on('error', reject)
			outgoing.end(body)
		})
	}
}

export function memoryStorage(): SupportedStorage & { items: Map<string, string> } {
	const items = new Map<string, string>()
	return {
		items,
		getItem: (key) => items.get(key) ?? null,
		setItem: (key, value) => void items.set(key, value),
		removeItem: (key) => void items.delete(key),
	}
}

/** Follows an emailed link like a browser would, without following the redirect. */
export async function openLink(link: string) {
	const response = await fetch(link, { redirect: 'manual' })
	const location = response.headers.get('location')
	if (response.status !== 303 || !location)
		throw new Error(`expected a 303 redirect, got ${response.status}: ${await response.text()}`)
	const url = new URL(location)
	return {
		url,
		query: url.searchParams,
		fragment: new URLSearchParams(url.hash.slice(1)),
	}
}
