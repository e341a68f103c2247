// The web process a bench measures (server.ts, production mode, on a data directory of its
// own) and the steps every bench takes with it: wait until it answers, sign a user up.
import { spawn } from 'node:child_process'
import { chmodSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { freePort } from '../tests/support/free-port.ts'

/**
 * server.ts with the benches' settings (log warnings only, the admin and the sign-in limit
 * out of the way) on free ports and a data directory of its own (BENCH_DATA_DIR: one a run
 * kept, used again; `reused` says so, and the caller leaves it); `env` adds or overrides.
 * BENCH_CPU_PROF=<dir>: the process writes a V8 CPU profile there when it stops.
 */
export async function startWebProcess(options: {
	/** the new data directory's name starts so */
	name: string
	/** unset: the app's own (kept in its data directory) */
	appSecret?: string
	env?: Record<string, string>
	/** unset: PORT, EMBEDDED_POSTGRES_PORT, or free ones */
	port?: number
	dbPort?: number
	/** node's own flags for the process */
	nodeFlags?: string[]
}) {
	const reused = process.env.BENCH_DATA_DIR
	const dataDir = reused ?? mkdtempSync(path.join(tmpdir(), `leadsmith-bench-${options.name}-`))
	chmodSync(dataDir, 0o755)
	const port = options.port ?? Number(process.env.PORT ?? (await freePort()))
	const dbPort = options.dbPort ?? Number(process.env.EMBEDDED_POSTGRES_PORT ?? (await freePort()))
	const base = `http://127.0.0.1:${port}`
	const databaseUrl = `postgres://postgres:postgres@127.0.0.1:${dbPort}/postgres`
	const profile = process.env.BENCH_CPU_PROF
	const app = spawn(
		process.execPath,
		[
			...(options.nodeFlags ?? []),
			...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []),
			'server.ts',
		],
		{
			env: {
				...process.env,
				NODE_ENV: 'production',
				PORT: String(port),
				APP_URL: base,
				...(options.appSecret ? { APP_SECRET: options.appSecret } : {}),
				DATA_DIR: dataDir,
				EMBEDDED_POSTGRES_PORT: String(dbPort),
				LOG_LEVEL: 'warn',
				ADMIN_EMAIL: 'admin@bench.test',
				ADMIN_PASSWORD: 'bench-admin-1',
				AUTH_RATE_LIMIT_IP: '1000000',
				...options.env,
			},
			stdio: ['ignore', 'inherit', 'inherit'],
		},
	)
	return { app, base, databaseUrl, dataDir, reused }
}

/** Until `url` answers 200 (at most 3 minutes: an embedded database's first start). */
export async function waitFor(url: string) {
	const deadline = Date.now() + 180_000
	while (Date.now() < deadline) {
		try {
			if ((await fetch(url)).ok) return
		} catch {
			// not up yet
		}
		await new Promise((r) => setTimeout(r, 250))
	}
	throw new Error(`${url} did not come up`)
}

/** Signs `email` up through the form, as a visitor does: the session's cookie. */
export async function signUp(base: string, email: string) {
	const response = await fetch(`${base}/signup`, {
		method: 'POST',
		body: new URLSearchParams({ fullName: 'Bench', email, password: 'bench-pass-1' }),
		redirect: 'manual',
	})
	const cookie = response.headers
		.getSetCookie()
		.map((c) => c.split(';')[0] ?? '')
		.filter((c) => c.startsWith('sb-'))
		.join('; ')
	if (!cookie) throw new Error(`sign-up gave no session (status ${response.status})`)
	return cookie
}
