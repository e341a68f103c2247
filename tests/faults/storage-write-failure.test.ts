import { mkdtemp, readdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { insertSubscription } from '../support/factories.ts'
import {
	signUpOverHttp,
	startServerProcess,
	type ServerProcess,
} from '../support/server-process.ts'

// Fault (issue 40, point 8): the file storage (DATA_DIR/uploads) fails while a CSV upload is
// written, here by a file size limit on the web process (`ulimit -f`: EFBIG, as a full disk
// gives ENOSPC). The person sees why at the form, with a 503 (not the 404 screen with a 500),
// and no half-written `.part` file stays behind.
let server: ServerProcess
let dataDir: string

beforeAll(async () => {
	dataDir = await mkdtemp(path.join(tmpdir(), 'leadsmith-storage-fault-'))
	server = await startServerProcess(
		process.env.DATABASE_URL!,
		{ DATA_DIR: dataDir },
		{ fileSizeLimitKb: 64 },
	)
}, 120_000)

afterAll(() => {
	server?.child.kill('SIGKILL')
})

async function filesUnder(dir: string): Promise<string[]> {
	const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => [])
	return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name))
}

test('a storage write that fails: a message at the form with 503, no .part file left', async () => {
	const email = `storage-${Date.now()}@example.com`
	const cookie = await signUpOverHttp(server.url, email)
	const user = await db
		.selectFrom('auth.users')
		.select('id')
		.where('email', '=', email)
		.executeTakeFirstOrThrow()
	await insertSubscription(db, user.id)
	await db.insertInto('onboarding').values({ user_id: user.id, completed_at: new Date() }).execute()

	// about 300 kB: past the 64 kB the process may write to one file
	const csv = [
		'email,first_name',
		...Array.from({ length: 10_000 }, (_, i) => `p${i}@example.com,P${i}`),
	].join('\n')
	const form = new FormData()
	form.set('intent', 'upload')
	form.set('file', new Blob([csv], { type: 'text/csv' }), 'leads.csv')
	const response = await fetch(`${server.url}/file-list`, {
		method: 'POST',
		redirect: 'manual',
		headers: { cookie, Origin: server.url },
		body: form,
	})
	const body = await response.text()
	expect(response.status, server.output()).toBe(503)
	expect(body).toContain('The file could not be stored')
	expect(body).not.toContain('Doesn&#x27;t Exist')
	expect(
		(await filesUnder(path.join(dataDir, 'uploads'))).filter((f) => f.endsWith('.part')),
	).toEqual([])
	expect(server.exited()).toBe(false)

	// a small file still goes through
	const small = new FormData()
	small.set('intent', 'upload')
	small.set('file', new Blob(['email\nsmall@example.com\n'], { type: 'text/csv' }), 'small.csv')
	const ok = await fetch(`${server.url}/file-list`, {
		method: 'POST',
		redirect: 'manual',
		headers: { cookie, Origin: server.url },
		body: small,
	})
	expect(ok.status).toBe(302)
	expect(ok.headers.get('location')).toMatch(/^\/file-list\?upload=/)
}, 60_000)
