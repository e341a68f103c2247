import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { freePort } from '../support/free-port.ts'

// `npm start` and `npm run worker` set no NODE_ENV, and the browser tests set NODE_ENV=test:
// they must still run React's production build (the development build renders several times
// slower, and is not what users get).
const children: ReturnType<typeof spawn>[] = []
afterAll(() => {
	for (const child of children) child.kill('SIGKILL')
})

function startWithoutNodeEnv(entry: string, env: Record<string, string>, readyLine: RegExp) {
	const { NODE_ENV: _ignored, ...inherited } = process.env
	const child = spawn(process.execPath, [entry], {
		env: { ...inherited, LOG_LEVEL: 'warn', ...env },
		stdio: ['ignore', 'pipe', 'pipe'],
	})
	children.push(child)
	let output = ''
	return new Promise<string>((resolve, reject) => {
		const read = (chunk: Buffer) => {
			output += chunk
			if (readyLine.test(output)) resolve(output)
		}
		child.stdout.on('data', read)
		child.stderr.on('data', read)
		child.once('exit', (code) => reject(new Error(`${entry} exited (${code}): ${output}`)))
	}).finally(() => child.kill('SIGKILL'))
}

test.each([
	['without NODE_ENV set', {}, 'production'],
	// the browser tests' mode: they try the builds users get
	['in the test mode', { NODE_ENV: 'test' }, 'test'],
])(
	'the web process runs React production builds %s',
	async (_, env, mode) => {
		const dataDir = await mkdtemp(path.join(tmpdir(), 'leadsmith-prod-'))
		try {
			const port = await freePort()
			const output = await startWithoutNodeEnv(
				'server.ts',
				{ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, WORKERS: '0', ...env },
				/React [a-z ]+ build\n/,
			)
			expect(output).toContain(`NODE_ENV=production, mode ${mode}, React production build`)
		} finally {
			await rm(dataDir, { recursive: true, force: true })
		}
	},
	60_000,
)

test('the worker process runs with NODE_ENV=production without NODE_ENV set', async () => {
	const output = await startWithoutNodeEnv('worker.ts', { WORKERS: '1' }, /workers are running.*\n/)
	expect(output).toMatch(/workers are running \(NODE_ENV=production\)/)
}, 60_000)
