import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { freePort } from './free-port.ts'

/** Builds the app when there is no build yet (the web process serves the build). */
export async function ensureBuild() {
	if (existsSync('build/server/index.js')) return
	await new Promise<void>((resolve, reject) => {
		const child = spawn('npm', ['run', 'build'], { stdio: 'ignore' })
		child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`build: ${code}`))))
	})
}

export type ServerProcess = {
	url: string
	child: ChildProcess
	output: () => string
	exited: () => boolean
}

/** `node server.ts` on the build, against `databaseUrl`; resolves once it listens. */
export async function startServerProcess(
	databaseUrl: string,
	env: Record<string, string> = {},
	/** `fileSizeLimitKb`: no file the process writes may grow larger (`ulimit -f`: EFBIG) */
	limits: { fileSizeLimitKb?: number } = {},
): Promise<ServerProcess> {
	await ensureBuild()
	const port = await freePort()
	const [command, args] = limits.fileSizeLimitKb
		? [
				'bash',
				['-c', `ulimit -f ${limits.fileSizeLimitKb} && exec "$0" server.ts`, process.execPath],
			]
		: [process.execPath, ['server.ts']]
	const child = spawn(command, args, {
		env: {
			...process.env,
			DATABASE_URL: databaseUrl,
			PORT: String(port),
			HOST: '127.0.0.1',
			APP_URL: `http://127.0.0.1:${port}`,
			DATA_DIR: await mkdtemp(path.join(tmpdir(), 'leadsmith-server-')),
			NODE_ENV: 'production',
			PAYMENTS: 'test',
			LOG_LEVEL: 'warn',
			ADMIN_EMAIL: 'admin@example.com',
			ADMIN_PASSWORD: 'admin-password-1',
			...env,
		},
		stdio: ['ignore', 'pipe', 'pipe'],
	})
	let output = ''
	let exited = false
	child.stdout!.on('data', (d) => (output += d))
	child.stderr!.on('data', (d) => (output += d))
	child.once('exit', () => (exited = true))
	await new Promise<void>((resolve, reject) => {
		child.stdout!.on('data', () => output.includes('is running at') && resolve())
		child.once('exit', (code) => reject(new Error(`server exited (${code}): ${output}`)))
	})
	return { url: `http://127.0.0.1:${port}`, child, output: () => output, exited: () => exited }
}

/** Signs a new account up through the form (no JavaScript); returns its session cookies. */
export async function signUpOverHttp(url: string, email: string) {
	const response = await fetch(`${url}/signup`, {
		method: 'POST',
		redirect: 'manual',
		headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: url },
		body: new URLSearchParams({ fullName: 'Fault Tester', email, password: 'correct-horse-7' }),
	})
	if (response.status !== 302) throw new Error(`sign-up answered ${response.status}`)
	return response.headers
		.getSetCookie()
		.map((cookie) => cookie.split(';')[0])
		.join('; ')
}

/** GET `pathname` as the holder of `cookie`: status, Retry-After and body, and how long it took. */
export async function getPage(url: string, pathname: string, cookie = '') {
	const started = performance.now()
	const response = await fetch(`${url}${pathname}`, {
		redirect: 'manual',
		headers: cookie ? { cookie } : {},
		signal: AbortSignal.timeout(30_000),
	})
	const body = await response.text()
	return {
		status: response.status,
		retryAfter: response.headers.get('retry-after'),
		body,
		ms: performance.now() - started,
	}
}
