import { mkdtemp, readdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { startFakeS3 } from '../fakes/s3/server.ts'
import { startS3rver } from '../support/s3rver.ts'
import {
	signUpOverHttp,
	startServerProcess,
	type ServerProcess,
} from '../support/server-process.ts'
import { workerProcesses, type WorkerProcesses } from '../support/worker-process.ts'

// Issue 18: the app scaled out. Two web processes (WORKERS=0) and two worker processes, each
// with its own DATA_DIR (nothing shared on disk), one PostgreSQL and one S3-compatible store.
// A file uploaded through web 1 is mapped through web 2 and imported by a worker; the list is
// downloaded through web 2; a worker killed mid-import is replaced by the other, which resumes
// from the checkpoint with a ranged read; sessions and rate limits hold across web processes.
// Each process names itself in pg_stat_activity (application_name), which gives the
// connection figures of docs/deploy.md. All of it against the project's S3 fake and against
// s3rver, an S3 server from the npm registry (issue 32 point 9).

/** What the test asks of the S3-compatible store. */
type Store = {
	bucket: string
	env: Record<string, string>
	calls: string[]
	keys(): Promise<string[]>
	throttleReads(bytesPerSecond: number): void
	close(): Promise<void>
}

const stores: [string, () => Promise<Store>][] = [
	[
		"the project's S3 fake",
		async () => {
			const fake = await startFakeS3()
			return Object.assign(fake, { keys: async () => [...fake.objects.keys()] })
		},
	],
	['s3rver', startS3rver],
]

const RATE_LIMIT_EMAIL = 3
let s3: Store
let web1: ServerProcess
let web2: ServerProcess
let workers: Awaited<ReturnType<typeof startWorker>>[]
const dataDirs: string[] = []
const workerPools: WorkerProcesses[] = []

/** DATABASE_URL with the process's name, so pg_stat_activity tells the processes apart. */
const databaseUrlAs = (name: string) => {
	const url = new URL(process.env.DATABASE_URL!)
	url.searchParams.set('application_name', name)
	return url.toString()
}

async function ownDataDir() {
	const dir = await mkdtemp(path.join(tmpdir(), 'leadsmith-scale-'))
	dataDirs.push(dir)
	return dir
}

async function startWorker(name: string) {
	const pool = workerProcesses({
		...s3.env,
		DATABASE_URL: databaseUrlAs(name),
		DATA_DIR: await ownDataDir(),
		WORKERS: '1',
		// "job started" lines tell which worker runs which job
		LOG_LEVEL: 'info',
	})
	workerPools.push(pool)
	const worker = pool.start()
	await worker.ready
	return worker
}

async function subscribe(email: string) {
	const { rows } = await sql<{
		id: string
	}>`select id from auth.users where email = ${email}`.execute(db)
	const id = rows[0]!.id
	await sql`insert into subscriptions (user_id, active_plan, status, billing_date, expire_date)
		values (${id}, 1, 'active', now(), now() + interval '30 days')`.execute(db)
	await sql`insert into onboarding (user_id, answers, phone, completed_at)
		values (${id}, '{}', null, now())`.execute(db)
}

function csvOf(rows: number, tag: string) {
	const lines = ['email,first_name,last_name']
	for (let i = 0; i < rows; i++) lines.push(`${tag}${i}@example.com,First${i},Last${i}`)
	return `${lines.join('\n')}\n`
}

/** Uploads through `web`, then maps and confirms through `other`; returns the list id. */
async function importThrough(
	web: ServerProcess,
	other: ServerProcess,
	cookie: string,
	csv: string,
	name: string,
	beforeConfirm?: () => void,
) {
	const form = new FormData()
	form.set('intent', 'upload')
	form.set('file', new Blob([csv], { type: 'text/csv' }), `${name}.csv`)
	const uploaded = await fetch(`${web.url}/file-list`, {
		method: 'POST',
		redirect: 'manual',
		headers: { cookie, Origin: web.url },
		body: form,
	})
	expect(uploaded.status).toBe(302)
	const uploadId = new URL(uploaded.headers.get('location')!, web.url).searchParams.get('upload')!
	// the mapping step on the other web process: the pending file and its preview are shared
	const mapping = await fetch(`${other.url}/file-list?upload=${uploadId}`, { headers: { cookie } })
	const html = (await mapping.text()).replaceAll('<!-- -->', '')
	expect(
		html.includes(`Map the columns of ${name}.csv`),
		'the mapping step on the other process',
	).toBe(true)
	beforeConfirm?.()
	const confirmed = await fetch(`${other.url}/file-list`, {
		method: 'POST',
		redirect: 'manual',
		headers: {
			cookie,
			Origin: other.url,
			'Content-Type': 'application/x-www-form-urlencoded',
		},
		body: new URLSearchParams({
			intent: 'import',
			uploadId,
			name,
			hasHeader: 'on',
			email: '0',
			first_name: '1',
			last_name: '2',
		}),
	})
	expect(confirmed.status).toBe(302)
	return confirmed.headers.get('location')!.replace('/lists/', '')
}

const listOf = (id: string) =>
	db
		.selectFrom('processing_list as l')
		.innerJoin('csv_imports as i', 'i.list_id', 'l.id')
		.select(['l.status', 'l.found', 'l.error', 'i.bytes_done', 'i.batches'])
		.where('l.id', '=', id)
		.executeTakeFirstOrThrow()

const leadCount = async (listId: string) =>
	Number(
		(
			await db
				.selectFrom('leads')
				.select((eb) => eb.fn.countAll().as('n'))
				.where('list_id', '=', listId)
				.executeTakeFirstOrThrow()
		).n,
	)

/** Connections each process holds now, by the name it gave (pg_stat_activity). */
async function connectionsByProcess() {
	const { rows } = await sql<{ name: string; n: number }>`
		select application_name as name, count(*)::int as n from pg_stat_activity
		where datname = current_database() and application_name in
			('web-1', 'web-2', 'worker-a', 'worker-b')
		group by 1 order by 1`.execute(db)
	return Object.fromEntries(rows.map((r) => [r.name, r.n]))
}

describe.each(stores)('with %s', (_name, startStore) => {
	beforeAll(async () => {
		s3 = await startStore()
		const web = async (name: string) =>
			startServerProcess(databaseUrlAs(name), {
				...s3.env,
				WORKERS: '0',
				DATA_DIR: await ownDataDir(),
				AUTH_RATE_LIMIT_EMAIL: String(RATE_LIMIT_EMAIL),
			})
		// web 1 first: it runs the migrations and makes the platform admin
		web1 = await web('web-1')
		const started = await Promise.all([
			web('web-2'),
			startWorker('worker-a'),
			startWorker('worker-b'),
		])
		web2 = started[0]
		workers = [started[1], started[2]]
	}, 120_000)

	afterAll(async () => {
		for (const pool of workerPools) pool.killAll()
		web1?.child.kill('SIGKILL')
		web2?.child.kill('SIGKILL')
		await s3?.close()
		// the next store starts with fresh processes
		workerPools.length = 0
	})

	test('two web and two worker processes share sessions, rate limits, files and jobs', async () => {
		// a session made on web 1 is good on web 2
		const email = `scale-${Date.now()}@example.com`
		const cookie = await signUpOverHttp(web1.url, email)
		await subscribe(email)
		const page = await fetch(`${web2.url}/file-list`, { headers: { cookie }, redirect: 'manual' })
		expect(page.status).toBe(200)

		// uploaded through web 1 (to the bucket, not a disk), imported by a worker
		const small = await importThrough(web1, web2, cookie, csvOf(500, 'small'), 'Small list')
		await expect
			.poll(async () => (await listOf(small)).status, { timeout: 30_000, interval: 250 })
			.toBe(2)
		expect((await listOf(small)).found).toBe(500)
		for (const dir of dataDirs) {
			expect(await readdir(path.join(dir, 'uploads')).catch(() => [])).toEqual([])
		}
		// the import deletes its file from the bucket once the list is done (on a busy machine,
		// a moment after the list shows it)
		await expect
			.poll(async () => (await s3.keys()).filter((k) => k.startsWith('uploads/imports/')), {
				timeout: 30_000,
				interval: 100,
			})
			.toEqual([])

		// downloaded through web 2
		const download = await fetch(`${web2.url}/lists/${small}/download`, { headers: { cookie } })
		expect(download.status).toBe(200)
		const exported = (await download.text()).trim().split(/\r?\n/)
		expect(exported.length).toBe(501)
		expect(exported.some((line) => line.startsWith('small499@example.com,'))).toBe(true)

		// a larger import, read slowly: the worker running it is killed mid-file, the other resumes
		const rows = 60_000
		const big = await importThrough(web2, web1, cookie, csvOf(rows, 'big'), 'Big list', () =>
			s3.throttleReads(200 * 1024),
		)
		const {
			rows: [job],
		} = await sql<{ id: string }>`select id from pgboss.job
			where name = 'csv-import' and data->>'listId' = ${big}`.execute(db)
		const runs = (worker: (typeof workers)[number]) =>
			worker.output().includes(`"id":"${job!.id}","retryCount":`)
		await expect
			.poll(async () => (await listOf(big)).bytes_done, { timeout: 30_000, interval: 50 })
			.toBeGreaterThan(0)
		const during = await connectionsByProcess()
		const first = workers.find(runs)!
		const other = workers.find((w) => w !== first)!
		first.child.kill('SIGKILL')
		const checkpoint = (await listOf(big)).bytes_done
		expect((await listOf(big)).status).toBe(1)
		s3.throttleReads(0)
		await expect
			.poll(async () => (await listOf(big)).status, { timeout: 60_000, interval: 250 })
			.toBe(2)
		expect(runs(other)).toBe(true)
		expect(await listOf(big)).toMatchObject({ found: rows, error: null })
		expect(await leadCount(big)).toBe(rows)
		// the other worker read the rest from the checkpoint (a ranged GET), not the file again from the start
		const bigKey = `/${s3.bucket}/uploads/imports/${big}.csv`
		const resumedFrom = s3.calls
			.filter((c) => c.startsWith(`GET ${bigKey}`))
			.map((c) => Number(/bytes=(\d+)-/.exec(c)?.[1] ?? 0))
		expect(resumedFrom[0]).toBe(0)
		expect(Math.max(...resumedFrom)).toBeGreaterThanOrEqual(checkpoint)
		expect(other.child.exitCode).toBeNull()

		// failed sign-ins count together on both web processes
		const signIn = (web: ServerProcess) =>
			fetch(`${web.url}/signin`, {
				method: 'POST',
				redirect: 'manual',
				headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: web.url },
				body: new URLSearchParams({ email, password: 'wrong-password-1' }),
			})
		const statuses = []
		for (let i = 0; i <= RATE_LIMIT_EMAIL; i++)
			statuses.push((await signIn(i % 2 ? web2 : web1)).status)
		expect(statuses).toEqual([...Array(RATE_LIMIT_EMAIL).fill(400), 429])
		expect(await (await signIn(web2)).text()).toContain('Too many attempts')

		// signed out on web 2: the session is gone on web 1 too
		const signedOut = await fetch(`${web2.url}/signout`, {
			method: 'POST',
			redirect: 'manual',
			headers: { cookie, Origin: web2.url },
		})
		expect(signedOut.status).toBe(302)
		const after = await fetch(`${web1.url}/file-list`, { headers: { cookie }, redirect: 'manual' })
		expect(after.status).toBe(302)
		expect(after.headers.get('location')).toMatch(/^\/signin/)

		const idle = await connectionsByProcess()
		console.log('connections per process', { 'while importing': during, 'at the end': idle })
		// every process stays well inside its pools (web 20 + pg-boss 4 + 1 listener; jobs 10 + 4)
		for (const n of Object.values({ ...during, ...idle })) expect(n).toBeLessThanOrEqual(25)
	}, 180_000)
})
