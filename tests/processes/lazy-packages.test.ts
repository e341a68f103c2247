import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { screens } from '../../app/routes.ts'
import {
	getPage,
	signUpOverHttp,
	startServerProcess,
	type ServerProcess,
} from '../support/server-process.ts'

// Issue 19 point 4 (decision 0055): the packages no page needs (the AI provider's SDK, Stripe's,
// SMTP, server-side analytics, the guarded fetch for URLs users set) are loaded by the first
// call that uses them, not by the web process's start. Whatever a process keeps live, V8 grows
// its heap from under load by a multiple: these five held 16 MB, and the web process peaked
// 35 MB higher with them.
const LOADED_ON_USE = ['openai', 'stripe', 'nodemailer', 'posthog-node', 'undici']

let dir: string
let log: string
let server: ServerProcess
beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'leadsmith-packages-'))
	log = path.join(dir, 'packages.log')
	const hooks = path.join(dir, 'hooks.mjs')
	// every package the process resolves, by name, once (module.registerHooks sees import and require)
	await writeFile(
		hooks,
		`import { registerHooks } from 'node:module'
import { appendFileSync } from 'node:fs'
const seen = new Set()
registerHooks({
	resolve(specifier, context, next) {
		const resolved = next(specifier, context)
		const name = resolved.url.match(/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//)?.[1]
		if (name && !seen.has(name)) {
			seen.add(name)
			appendFileSync(${JSON.stringify(log)}, name + '\\n')
		}
		return resolved
	},
})
`,
	)
	server = await startServerProcess(process.env.DATABASE_URL!, {
		NODE_OPTIONS: `--import ${pathToFileURL(hooks).href}`,
	})
}, 60_000)
afterAll(async () => {
	server?.child.kill('SIGKILL')
	await rm(dir, { recursive: true, force: true })
})

const loadedPackages = async () => (await readFile(log, 'utf8')).split('\n').filter(Boolean)

test('pages signed out and signed in load none of the packages only a call to an outside service needs', async () => {
	const cookie = await signUpOverHttp(server.url, `lazy-${Date.now()}@example.com`)
	const paths = screens.filter((s) => !s.path.includes(':')).map((s) => `/${s.path}`)
	expect(paths.length).toBeGreaterThan(20)
	for (const pathname of paths) {
		for (const as of ['', cookie]) {
			const page = await getPage(server.url, pathname, as)
			expect(page.status, `${pathname} ${as ? 'signed in' : 'signed out'}`).toBeLessThan(500)
		}
	}
	const loaded = await loadedPackages()
	// the hook sees the packages pages do load
	expect(loaded).toEqual(expect.arrayContaining(['react-dom', 'kysely', 'pg']))
	expect(loaded.filter((name) => LOADED_ON_USE.includes(name))).toEqual([])
}, 120_000)
