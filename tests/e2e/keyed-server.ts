// A second app server for the analytics and build-version tests: POSTHOG_KEY set (with the
// fake collector of tests/fakes/posthog), a short BUILD_POLL_INTERVAL_MS and its own copy of
// the build, so rewriting its version.json touches no other test. Other specs start one with
// their own port offset and settings (admin.spec.ts: Stripe pointed at a fake the test drives).
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { cpSync, rmSync } from 'node:fs'
import path from 'node:path'

export type KeyedServer = {
	baseURL: string
	posthogURL: string
	buildDir: string
	/** its embedded PostgreSQL's port (withDatabase's second argument) */
	dbPort: number
	stop(): Promise<void>
}

export async function startKeyedServer(
	options: { offset?: number; posthog?: boolean; env?: Record<string, string> } = {},
): Promise<KeyedServer> {
	const offset = options.offset ?? 37
	const port = Number(process.env.E2E_PORT ?? 4310) + offset
	const dbPort = Number(process.env.E2E_DB_PORT ?? 25399) + offset
	const posthogPort = port + 1
	const source = process.env.BUILD_DIR ?? 'build'
	const buildDir = path.resolve(`${source}-keyed-${port}`)
	rmSync(buildDir, { recursive: true, force: true })
	cpSync(source, buildDir, { recursive: true })
	const baseURL = `http://localhost:${port}`
	const child = spawn(process.execPath, ['tests/e2e/serve.ts'], {
		env: {
			...process.env,
			PORT: String(port),
			APP_URL: baseURL,
			NODE_ENV: 'test',
			DATA_DIR: `.data/e2e-${port}`,
			EMBEDDED_POSTGRES_PORT: String(dbPort),
			LOG_LEVEL: 'warn',
			BUILD_DIR: buildDir,
			...(options.posthog === false
				? {}
				: { E2E_POSTHOG: '1', E2E_POSTHOG_PORT: String(posthogPort) }),
			BUILD_POLL_INTERVAL_MS: '500',
			AUTH_RATE_LIMIT_IP: '100000',
			WORKERS: '0',
			ALLOW_PRIVATE_URLS: 'true',
			...options.env,
		},
		stdio: ['ignore', 'inherit', 'inherit'],
	})
	const deadline = Date.now() + 120_000
	for (;;) {
		if (child.exitCode !== null) throw new Error(`keyed server exited with ${child.exitCode}`)
		try {
			if ((await fetch(`${baseURL}/healthz`)).ok) break
		} catch {
			// not up yet
		}
		if (Date.now() > deadline) throw new Error('keyed server did not start')
		await new Promise((resolve) => setTimeout(resolve, 300))
	}
	return {
		baseURL,
		posthogURL: `http://127.0.0.1:${posthogPort}`,
		buildDir,
		dbPort,
		async stop() {
			if (child.exitCode === null) {
				child.kill('SIGTERM')
				await once(child, 'exit')
			}
			rmSync(buildDir, { recursive: true, force: true })
		},
	}
}
