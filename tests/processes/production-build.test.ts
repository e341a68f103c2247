import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import type { Server } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { ServerBuild } from 'react-router'
import { afterAll, describe, expect, test } from 'vitest'
import { db, getPool } from '../../db/index.server.ts'
import { routeHandles } from '../../app/server/route-handles.server.ts'
import { resetSingleton } from '../../app/utils/singleton.server.ts'
import { insertSubscription } from '../support/factories.ts'
import { freePort } from '../support/free-port.ts'
import { ensureBuild } from '../support/server-process.ts'

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

// The production build keeps a route's exports React Router knows, no others (its server build
// re-exports only those): the dashboard's read with the request context rides on its loader, so
// GET / is still one statement there, found through the route's match (decision 0075).
describe("the production build: the dashboard's read with the request context", () => {
	let server: Server | undefined
	afterAll(async () => {
		server?.closeAllConnections()
		await new Promise((resolve) => server?.close(resolve))
		const { stopBoss } = await import('../../app/jobs/boss.server.ts')
		await stopBoss().catch(() => {})
	})

	test('GET / signed in sends one statement, the context with the dashboard; a data request not for the page reads no dashboard', async () => {
		await ensureBuild()
		const port = await freePort()
		const origin = `http://localhost:${port}`
		Object.assign(process.env, { APP_URL: origin, PORT: String(port), WORKERS: '0' })
		resetSingleton('config')
		const build = (await import(
			pathToFileURL(path.resolve('build/server/index.js')).href
		)) as ServerBuild
		// the declaration survived the build, on the dashboard's route
		const declared = routeHandles(build)('/').contextRead
		expect([declared?.routeId, declared?.read.name]).toEqual(['index', 'dashboard'])

		const { createApp } = await import('../../app/server/app.server.ts')
		const app = await createApp({ nonce: () => 'nonce', build: async () => build })
		server = app.listen(port, '127.0.0.1')
		await new Promise((resolve) => server!.once('listening', resolve))

		// a new owner with a plan, past onboarding, signed in through the sign-up form
		const email = `dashboard-${randomUUID().slice(0, 8)}@example.com`
		const signup = await fetch(`${origin}/signup`, {
			method: 'POST',
			redirect: 'manual',
			headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
			body: new URLSearchParams({ fullName: 'Dash', email, password: 'password123' }),
		})
		expect(signup.status).toBe(302)
		const cookie = signup.headers
			.getSetCookie()
			.map((line) => line.split(';')[0])
			.join('; ')
		const { id } = await db
			.selectFrom('auth.users')
			.select('id')
			.where('email', '=', email)
			.executeTakeFirstOrThrow()
		await insertSubscription(db, id)
		await db
			.insertInto('onboarding')
			.values({ user_id: id, completed_at: new Date() })
			.onConflict((oc) => oc.column('user_id').doUpdateSet({ completed_at: new Date() }))
			.execute()

		// every statement the app's pool sends, by its text
		const sent: string[] = []
		const watched = new WeakSet<object>()
		getPool().on('acquire', (client) => {
			if (watched.has(client)) return
			watched.add(client)
			const query = client.query.bind(client) as (...args: unknown[]) => unknown
			client.query = ((text: unknown, ...rest: unknown[]) => {
				sent.push(typeof text === 'string' ? text : String((text as { text?: string }).text))
				return query(text, ...rest)
			}) as typeof client.query
		})
		const get = async (target: string) => {
			const answer = await fetch(`${origin}${target}`, { headers: { cookie }, redirect: 'manual' })
			return { status: answer.status, body: await answer.text() }
		}
		await get('/') // an account's first request makes its settings row
		const withDashboard = (text: string) => text.includes('current_workspace as (')
		for (const target of ['/', '/_.data', '/_.data?_routes=index']) {
			sent.length = 0
			const answer = await get(target)
			expect(answer.status, target).toBe(200)
			expect(answer.body, target).toContain('Create leads')
			expect(sent.length, target).toBe(1)
			expect(withDashboard(sent[0]!), target).toBe(true)
		}
		// the layout's data only: the context alone, no dashboard read
		sent.length = 0
		const layoutOnly = await get('/_.data?_routes=root,layout-default')
		expect(layoutOnly.status).toBe(200)
		expect(sent.length).toBe(1)
		expect(withDashboard(sent[0]!)).toBe(false)
	}, 120_000)
})
