// `npm run bench:emailbison`: 100,000 leads uploaded to the EmailBison fake answering every
// call after 100 ms. Reports the calls made against the target (ceil(100000/500) upserts
// plus as many attaches, no more), the time against the floor those calls take one after
// another (the ratio: 1.0 is no time of our own between calls), and the peak RSS of this
// process (which runs the job). The fake runs in a process of its own (bench/emailbison-fake.ts)
// and answers each call `BENCH_LATENCY_MS` after it arrived, its own work included: the floor
// is the calls' latency alone, and the fake's CPU is not counted as the uploader's. Also prints
// the uploader's CPU per call. BENCH_LEADS and BENCH_LATENCY_MS change the sizes.
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { startEmbeddedPostgres } from '../db/embedded.ts'
import { freePort } from '../tests/support/free-port.ts'

const LEADS = Number(process.env.BENCH_LEADS ?? 100_000)
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 100)

const dir = mkdtempSync(path.join(tmpdir(), 'leadsmith-bench-eb-'))
chmodSync(dir, 0o755)
const pg = await startEmbeddedPostgres({
	dir: path.join(dir, 'data'),
	port: await freePort(),
	persistent: false,
})
process.env.DATABASE_URL = pg.url
process.env.APP_SECRET ??= 'bench-secret-bench-secret-bench-secret-01'
process.env.NODE_ENV = 'test'
process.env.LOG_LEVEL = 'warn'
// the fake EmailBison listens on 127.0.0.1
process.env.ALLOW_PRIVATE_URLS = 'true'

const { db } = await import('../db/index.server.ts')
const { migrateToLatest } = await import('../db/migrate.ts')
const { sql } = await import('kysely')
const { insertUser } = await import('../tests/support/factories.ts')
const { loadAccountContext } = await import('../app/context.server.ts')
const { saveEmailBisonSettings } = await import('../app/services/emailbison/settings.server.ts')
const { startEmailBisonUpload } = await import('../app/services/emailbison/uploads.server.ts')
const { runEmailBisonUpload } = await import('../app/services/emailbison/run-upload.server.ts')
const { stopBoss } = await import('../app/jobs/boss.server.ts')

const fake = fork(path.join(import.meta.dirname, 'emailbison-fake.ts'), [], {
	stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
	// not the bench's own flags (--cpu-prof profiles the uploader)
	execArgv: [],
})
const [hello] = (await once(fake, 'message')) as [{ url: string; superAdminKey: string }]
let asked = 0
const ask = <T>(question: Record<string, unknown>) =>
	new Promise<T>((resolve) => {
		const id = ++asked
		const listen = (message: { id?: number; answer: T }) => {
			if (message.id !== id) return
			fake.off('message', listen)
			resolve(message.answer)
		}
		fake.on('message', listen)
		fake.send({ ...question, id })
	})
const eb = { url: hello.url, superAdminKey: hello.superAdminKey }
try {
	await migrateToLatest(db)
	const user = await insertUser(db)
	await saveEmailBisonSettings(await loadAccountContext(db, user), {
		url: eb.url,
		apiKey: eb.superAdminKey,
	})
	const me = await loadAccountContext(db, user)
	const list = await db
		.insertInto('processing_list')
		.values({ user_id: user.id, name: 'Bench', source_type: 'upload', status: 2 })
		.returning('id')
		.executeTakeFirstOrThrow()
	await sql`
		insert into leads (list_id, user_id, email, first_name, last_name, title, company_name, linkedin_url, data)
		select ${list.id}, ${user.id}, 'lead' || n || '@company' || (n % 997) || '.com', 'First' || n,
			'Last' || n, 'CEO', 'Company ' || (n % 997), 'https://linkedin.com/in/lead' || n,
			jsonb_build_object('icebreaker', 'Hello ' || n)
		from generate_series(1, ${LEADS}::int) n
	`.execute(db)

	const { uploadId } = await startEmailBisonUpload(me, list.id, {
		workspace: 2,
		campaign: 'new',
		newCampaign: 'Bench',
		fields: {
			email: 'email',
			first_name: 'first_name',
			last_name: 'last_name',
			title: 'title',
			company: 'company_name',
		},
		variables: [
			{ source: 'linkedin_url', name: 'linkedin_url' },
			{ source: 'data:icebreaker', name: 'icebreaker' },
		],
	})
	await ask({ op: 'clear-calls' })
	await ask({ op: 'latency', ms: LATENCY_MS })
	const cpuBefore = process.cpuUsage()
	const started = performance.now()
	await runEmailBisonUpload(uploadId, {
		jobId: 'bench',
		retryCount: 0,
		signal: new AbortController().signal,
	})
	const seconds = (performance.now() - started) / 1000
	const cpu = process.cpuUsage(cpuBefore)
	const upload = await db
		.selectFrom('emailbison_upload')
		.selectAll()
		.where('id', '=', uploadId)
		.executeTakeFirstOrThrow()
	const stats = await ask<{
		upserts: number
		attaches: number
		total: number
		inCampaign: number
		peakRssMiB: number
		betweenCallsMs: number
		fakeOverLatencyMs: number
	}>({ op: 'stats', campaign: 'Bench' })
	const { upserts, attaches } = stats
	const target = Math.ceil(LEADS / 500)
	const floorSeconds = (2 * target * LATENCY_MS) / 1000
	const result = {
		date: new Date().toISOString(),
		leads: LEADS,
		latencyMs: LATENCY_MS,
		status: upload.status,
		sent: upload.sent,
		attached: upload.attached,
		inCampaign: stats.inCampaign,
		calls: {
			upserts,
			attaches,
			other: stats.total - upserts - attaches,
			total: stats.total,
			target: `${target} upserts + ${target} attaches`,
		},
		seconds: Number(seconds.toFixed(1)),
		floorSeconds,
		overFloor: `${(((seconds - floorSeconds) / floorSeconds) * 100).toFixed(1)}%`,
		/** the time over the floor: 1.0 is calls back to back with no work of ours between */
		ratio: Number((seconds / floorSeconds).toFixed(3)),
		/** from the fake's clock: answer to next call (ours), and its answers later than the latency */
		betweenCallsMsPerCall: Number((stats.betweenCallsMs / stats.total).toFixed(1)),
		fakeOverLatencyMs: stats.fakeOverLatencyMs,
		/** CPU of the process running the job (not the fake, not PostgreSQL), per call */
		uploaderCpuMsPerCall: Number(((cpu.user + cpu.system) / 1000 / stats.total).toFixed(1)),
		peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
		fakePeakRssMiB: stats.peakRssMiB,
		loadAverage: loadavg().map((n) => Number(n.toFixed(1))),
	}
	console.log(JSON.stringify(result, null, 2))
	console.log(
		`${LEADS.toLocaleString('en')} leads: ${result.seconds} s against a ${floorSeconds} s floor of ` +
			`${2 * target} sequential calls at ${LATENCY_MS} ms: ratio ${result.ratio} ` +
			`(load average ${result.loadAverage.join(' ')})`,
	)
} finally {
	fake.disconnect()
	await once(fake, 'exit')
	await stopBoss().catch(() => {})
	await db.destroy()
	await pg.stop()
	rmSync(dir, { recursive: true, force: true })
}
