// Real processes for the lifecycle fault tests: `node server.ts` / `node worker.ts` on the
// production build, with their output kept for asserting on and a way to wait for it.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { afterAll, onTestFinished } from 'vitest'

export type AppProcess = {
	child: ChildProcess
	output: () => string
	/** resolves with the exit code (null when killed by a signal) */
	exited: Promise<number | null>
	/** waits until the output matches, failing early (with the output) if the process exits */
	waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpMatchArray>
}

const started = new Set<ChildProcess>()
afterAll(() => {
	for (const child of started) if (child.exitCode === null) child.kill('SIGKILL')
})

export function startProcess(script: 'server.ts' | 'worker.ts', env: Record<string, string>) {
	if (script === 'server.ts' && !existsSync('build/server/index.js'))
		throw new Error('the fault tests run the production build: run `npm run build` first')
	const child = spawn(process.execPath, [script], {
		env: {
			...process.env,
			// the embedded server unless a test names a database
			DATABASE_URL: '',
			NODE_ENV: 'production',
			LOG_LEVEL: 'info',
			WORKERS: '0',
			HOST: '127.0.0.1',
			...env,
		},
		stdio: ['ignore', 'pipe', 'pipe'],
	})
	started.add(child)
	// a failed test leaves nothing running for the next one
	onTestFinished(async () => {
		if (child.exitCode !== null || child.signalCode !== null) return
		child.kill('SIGKILL')
		await exited
	})
	let output = ''
	const listeners = new Set<() => void>()
	const append = (chunk: Buffer) => {
		output += chunk.toString()
		for (const listener of listeners) listener()
	}
	child.stdout!.on('data', append)
	child.stderr!.on('data', append)
	const exited = new Promise<number | null>((resolve) =>
		child.once('exit', (code) => {
			started.delete(child)
			resolve(code)
			for (const listener of listeners) listener()
		}),
	)
	const waitFor = (pattern: RegExp, timeoutMs = 60_000) =>
		new Promise<RegExpMatchArray>((resolve, reject) => {
			const timer = setTimeout(() => {
				listeners.delete(check)
				reject(new Error(`timed out waiting for ${pattern}; output:\n${output}`))
			}, timeoutMs)
			function check() {
				const match = output.match(pattern)
				if (match) {
					clearTimeout(timer)
					listeners.delete(check)
					resolve(match)
				} else if (child.exitCode !== null || child.signalCode !== null) {
					clearTimeout(timer)
					listeners.delete(check)
					reject(
						new Error(
							`exited (${child.exitCode ?? child.signalCode}) before ${pattern}:\n${output}`,
						),
					)
				}
			}
			listeners.add(check)
			check()
		})
	return { child, output: () => output, exited, waitFor } satisfies AppProcess
}

/** The web process, started and serving; resolves with its base URL. */
export async function startServer(env: Record<string, string>, timeoutMs = 90_000) {
	const app = startProcess('server.ts', { PORT: '0', ...env })
	const [, url] = await app.waitFor(/is running at (http:\/\/\S+)/, timeoutMs)
	return { ...app, url: url! }
}

/** Whether a process (say the embedded PostgreSQL) is still running; exited zombies count as gone. */
export function isRunning(pid: number) {
	try {
		process.kill(pid, 0)
	} catch {
		return false
	}
	try {
		return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
	} catch {
		return true
	}
}

/** The embedded PostgreSQL's pid from its data directory (postmaster.pid), if any. */
export function postmasterPid(dataDir: string) {
	const file = `${dataDir}/postgres/postmaster.pid`
	return existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : undefined
}
