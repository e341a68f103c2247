// `npm run bench:list`: the list page (/lists/:id) of a 1,000,000-row list with 5,000,000
// leads of other, older lists in the same table, through the real web process. Builds the
// data with generate_series (the leads indexes dropped during the load and made again from
// their own definitions), then prints the first, a middle and the last page (as the Next
// links reach them, and as a typed ?page= number, once before the list's marks are built and
// then after), sorted pages and searches: the median of
// single requests one after another (after 3 untimed ones), then 50 connections at once while a CSV import job runs
// (in a worker process, `npm run worker`; BENCH_JOB_IN=web: in the web process, WORKERS=1),
// beside the same page of a 50-lead list. Needs a build (`npm run build`).
// BENCH_LIST_ROWS, BENCH_OTHER_ROWS, BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_JOB_ROWS change
// the sizes; PORT and EMBEDDED_POSTGRES_PORT pick the ports (free ones otherwise).
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createWriteStream, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import path from 'node:path'
import autocannon from 'autocannon'
import pg from 'pg'
import { bigListBuiltBefore, buildBigList, signUpAndSubscribe } from './big-list.ts'
import { startWebProcess, waitFor } from './web-process.ts'

const LIST_ROWS = Number(process.env.BENCH_LIST_ROWS ?? 1_000_000)
const OTHER_ROWS = Number(process.env.BENCH_OTHER_ROWS ?? 5_000_000)
const DURATION = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const JOB_ROWS = Number(process.env.BENCH_JOB_ROWS ?? 300_000)
const SINGLE_RUNS = 11
const WARM_UP_RUNS = 3
const JOB_IN_WEB = process.env.BENCH_JOB_IN === 'web'
const APP_SECRET = 'bench-list-secret-bench-list-secret-0001'

if (process.argv[2] === '--start-import') {
	await startImport(process.argv[3]!, process.argv[4]!, process.argv[5]!)
} else {
	await main()
}

async function main() {
	// BENCH_DATA_DIR: the data directory a run kept (BENCH_KEEP_DATA=1), its leads used again
	const { app, base, databaseUrl, dataDir, reused } = await startWebProcess({
		name: 'list',
		appSecret: APP_SECRET,
		// the job runs in a worker process of its own unless BENCH_JOB_IN=web
		env: { WORKERS: JOB_IN_WEB ? '1' : '0' },
	})
	let worker: ReturnType<typeof spawn> | null = null
	const client = new pg.Client(databaseUrl)
	try {
		await waitFor(`${base}/healthz`)
		// started once the web process's embedded database is up
		worker = JOB_IN_WEB
			? null
			: spawn(process.execPath, ['worker.ts'], {
					env: {
						...process.env,
						NODE_ENV: 'production',
						DATABASE_URL: databaseUrl,
						APP_SECRET,
						DATA_DIR: dataDir,
						LOG_LEVEL: 'warn',
					},
					stdio: ['ignore', 'inherit', 'inherit'],
				})
		const { cookie, userId } = await signUpAndSubscribe(base, databaseUrl)
		await client.connect()
		const built = Date.now()
		const { listId, smallListId } =
			(await bigListBuiltBefore(client, userId)) ??
			(await buildBigList(client, userId, { listRows: LIST_ROWS, otherRows: OTHER_ROWS }))
		const buildSeconds = (Date.now() - built) / 1000
		console.log(
			`built ${(LIST_ROWS + OTHER_ROWS).toLocaleString('en')} leads in ${buildSeconds.toFixed(0)} s`,
		)

		const pages = await pageUrls(client, listId)
		const marks = await typedPagesBeforeMarks(client, base, cookie, listId, pages)
		// the page's data as its loader reads it (no rendering, no HTTP): what the database does
		process.env.DATABASE_URL = databaseUrl
		process.env.DATA_DIR = dataDir
		process.env.APP_SECRET = APP_SECRET
		const { db } = await import('../db/index.server.ts')
		const { loadAccountContext } = await import('../app/context.server.ts')
		const { listLeadsPage } = await import('../app/services/lists/leads-page.server.ts')
		const account = await loadAccountContext(db, { id: userId, email: 'bench@example.com' })
		const loaderData = async (search: string) => {
			const times: number[] = []
			for (let i = 0; i < SINGLE_RUNS; i++) {
				const started = performance.now()
				const params = new URLSearchParams(search)
				await listLeadsPage(account, listId, params)
				times.push(performance.now() - started)
			}
			times.sort((a, b) => a - b)
			return Number(times[Math.floor(times.length / 2)]!.toFixed(1))
		}
		const dataMs: Record<string, number> = {}
		for (const [name, search] of Object.entries(pages)) dataMs[name] = await loaderData(search)
		console.log(`page data (loader) p50 ms: ${JSON.stringify(dataMs)}`)
		const single: Record<string, { p50: number; max: number; rows: number }> = {}
		// the same page for a list of 50 leads: what the page costs whatever the list's size
		single['baseline: a 50-lead list'] = await singleRequests(
			`${base}/lists/${smallListId}`,
			cookie,
		)
		for (const [name, search] of Object.entries(pages)) {
			single[name] = await singleRequests(`${base}/lists/${listId}${search}`, cookie)
			console.log(`single ${name}: p50 ${single[name].p50} ms (max ${single[name].max} ms)`)
		}

		// a CSV import job running in the web process while the pages are under load
		const csv = path.join(dataDir, 'job.csv')
		await generateCsv(csv, JOB_ROWS)
		const job = await keepImportRunning(client, { csv, userId, dataDir, databaseUrl })
		const loaded: Record<string, Awaited<ReturnType<typeof measure>> & { dataP50Ms?: number }> = {}
		try {
			// the same page for a list of 50 leads: what the page costs whatever the list's size
			loaded['baseline: a 50-lead list'] = await measure(`${base}/lists/${smallListId}`, cookie)
			for (const name of [
				'first',
				'middle (Next links)',
				'last (Next links)',
				'by email, middle',
				'search',
			]) {
				const [result, data] = await Promise.all([
					measure(`${base}/lists/${listId}${pages[name]}`, cookie),
					// the same page's data, read meanwhile by this process
					new Promise((r) => setTimeout(r, (DURATION * 1000) / 3)).then(() =>
						loaderData(pages[name]!),
					),
				])
				loaded[name] = { ...result, dataP50Ms: data }
				console.log(
					`${CONNECTIONS} connections ${name}: ${loaded[name].requestsPerSecond} req/s, p50 ${loaded[name].p50} ms, p99 ${loaded[name].p99} ms, page data p50 ${data} ms`,
				)
			}
		} finally {
			await job.stop()
			await db.destroy()
		}
		const result = {
			date: new Date().toISOString(),
			listRows: LIST_ROWS,
			otherRows: OTHER_ROWS,
			buildSeconds: Math.round(buildSeconds),
			singleRequestMs: single,
			pageDataMs: dataMs,
			typedPagesBeforeMarks: marks,
			connections: CONNECTIONS,
			durationSeconds: DURATION,
			withImportJob: {
				runsIn: JOB_IN_WEB ? 'the web process' : 'a worker process (WORKERS=0 on the web)',
				importsStarted: job.started(),
				runningThroughout: job.runningThroughout(),
				rowsImportedDuringLoad: await job.rowsImported(),
			},
			underLoad: loaded,
			loadAverage: loadavg().map((n) => Number(n.toFixed(1))),
		}
		console.log(JSON.stringify(result, null, 2))
		mkdirSync('bench/results', { recursive: true })
		writeFileSync(`bench/results/list-${Date.now()}.json`, JSON.stringify(result, null, 2))
	} finally {
		await client.end().catch(() => {})
		if (worker) {
			worker.kill('SIGTERM')
			await once(worker, 'exit')
		}
		app.kill('SIGTERM')
		await once(app, 'exit')
		if (process.env.BENCH_KEEP_DATA || reused) console.log(`data kept in ${dataDir}`)
		else rmSync(dataDir, { recursive: true, force: true })
	}
}

/**
 * A typed page number far into a finished list starts from the list's marks, which a job (in
 * the worker) builds when such a page first asks for them (decision 0045). The marks of a kept
 * list are dropped first; then each typed page is asked once, which walks the index as before
 * the marks (timed), and the run waits until the marks are built, so the pages measured after
 * are what every later visitor gets.
 */
async function typedPagesBeforeMarks(
	client: pg.Client,
	base: string,
	cookie: string,
	listId: string,
	pages: Record<string, string>,
) {
	await client.query(`delete from lead_page_marks where list_id = $1`, [listId])
	const walkMs: Record<string, number> = {}
	for (const [name, search] of Object.entries(pages)) {
		if (!name.includes('typed')) continue
		const started = performance.now()
		await (await fetch(`${base}/lists/${listId}${search}`, { headers: { cookie } })).text()
		walkMs[name] = Number((performance.now() - started).toFixed(1))
	}
	const asked = Date.now()
	for (;;) {
		const { rows } = await client.query<{ waiting: number; built: number }>(
			`select count(*) filter (where built_at is null)::int as waiting,
				count(*) filter (where built_at is not null)::int as built
			 from lead_page_marks where list_id = $1`,
			[listId],
		)
		if (rows[0]!.waiting === 0) {
			const result = {
				walkMs,
				sortsMarked: rows[0]!.built,
				builtInSeconds: (Date.now() - asked) / 1000,
			}
			console.log(`typed pages before their marks: ${JSON.stringify(result)}`)
			return result
		}
		if (Date.now() - asked > 180_000) throw new Error('the marks were not built in 3 minutes')
		await new Promise((resolve) => setTimeout(resolve, 200))
	}
}

/** The URLs measured, by name: pages as the Next links reach them and as typed numbers. */
async function pageUrls(client: pg.Client, listId: string) {
	const cursor = (key: string | null, id: string) =>
		Buffer.from(JSON.stringify([key, id])).toString('base64url')
	const at = async (offset: number, key: string) => {
		const { rows } = await client.query<{ id: string; key: string | null }>(
			`select id, ${key} as key from leads where list_id = $1 order by ${key}, id offset $2 limit 1`,
			[listId, offset],
		)
		return rows[0]!
	}
	const pages = Math.ceil(LIST_ROWS / 50)
	const middle = Math.floor(pages / 2)
	const mid = await at((middle - 1) * 50 - 1, 'null::text')
	const last = await at((pages - 1) * 50 - 1, 'null::text')
	const emailMid = await at((middle - 1) * 50 - 1, `(lower(email) collate "C")`)
	return {
		first: '',
		'middle (Next links)': `?page=${middle}&after=${cursor(null, mid.id)}`,
		'last (Next links)': `?page=${pages}&after=${cursor(null, last.id)}`,
		'middle (typed ?page=)': `?page=${middle}`,
		'last (typed ?page=)': `?page=${pages}`,
		'newest first': '?dir=desc',
		'by email, first': '?sort=email',
		'by email, middle': `?sort=email&page=${middle}&after=${cursor(emailMid.key, emailMid.id)}`,
		'by email, middle (typed ?page=)': `?sort=email&page=${middle}`,
		'by company, descending': '?sort=company&dir=desc',
		search: '?q=person12345',
		'search, two words': '?q=ada+last12',
		'search, no match': '?q=zz',
	} as Record<string, string>
}

async function singleRequests(url: string, cookie: string) {
	const times: number[] = []
	let rows = 0
	// untimed first: a steady state, not the JIT's first compiles or PostgreSQL's cold buffers
	for (let i = 0; i < WARM_UP_RUNS; i++) await (await fetch(url, { headers: { cookie } })).text()
	for (let i = 0; i < SINGLE_RUNS; i++) {
		const started = performance.now()
		const response = await fetch(url, { headers: { cookie } })
		const body = await response.text()
		times.push(performance.now() - started)
		if (response.status !== 200) throw new Error(`${url} answered ${response.status}`)
		rows = body.split('data-testid="lead-row"').length - 1
	}
	times.sort((a, b) => a - b)
	return {
		p50: Number(times[Math.floor(times.length / 2)]!.toFixed(1)),
		max: Number(times.at(-1)!.toFixed(1)),
		rows,
	}
}

async function measure(url: string, cookie: string) {
	const result = await autocannon({
		url,
		headers: { cookie },
		connections: CONNECTIONS,
		duration: DURATION,
	})
	if (result.non2xx > 0 || result.errors > result.timeouts)
		throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`)
	return {
		requestsPerSecond: Math.round(result.requests.average),
		p50: result.latency.p50,
		p99: result.latency.p99,
		total: result.requests.total,
		timeouts: result.timeouts,
	}
}

/**
 * Starts CSV imports one after the other (each a job the web process's worker runs), so that
 * one is running whenever the pages are measured; says whether one always was.
 */
async function keepImportRunning(
	client: pg.Client,
	options: { csv: string; userId: string; dataDir: string; databaseUrl: string },
) {
	let stopped = false
	let started = 0
	let gap = false
	const lists: string[] = []
	const running = async (listId: string) => {
		const { rows } = await client.query<{ status: number }>(
			'select status from processing_list where id = $1',
			[listId],
		)
		return rows[0]!.status < 2
	}
	const startOne = async () => {
		const child = spawn(
			process.execPath,
			[import.meta.filename, '--start-import', options.csv, options.userId, `Job ${started}`],
			{
				env: {
					...process.env,
					NODE_ENV: 'production',
					DATABASE_URL: options.databaseUrl,
					DATA_DIR: options.dataDir,
					APP_SECRET,
					LOG_LEVEL: 'warn',
					WORKERS: '0',
				},
				stdio: ['ignore', 'pipe', 'inherit'],
			},
		)
		let output = ''
		child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
		const [code] = (await once(child, 'exit')) as [number]
		if (code !== 0) throw new Error(`starting an import failed (${code}): ${output}`)
		const listId = output.trim().split('\n').at(-1)!
		started++
		lists.push(listId)
		// the worker takes it: wait until it is processing
		for (;;) {
			const { rows } = await client.query<{ status: number }>(
				'select status from processing_list where id = $1',
				[listId],
			)
			if (rows[0]!.status >= 1) break
			await new Promise((r) => setTimeout(r, 100))
		}
		return listId
	}
	let current = await startOne()
	const loop = (async () => {
		while (!stopped) {
			await new Promise((r) => setTimeout(r, 250))
			if (stopped) break
			if (!(await running(current))) {
				gap = true
				current = await startOne()
			}
		}
	})()
	return {
		started: () => started,
		runningThroughout: () => !gap,
		rowsImported: async () => {
			const { rows } = await client.query<{ n: string }>(
				'select coalesce(sum(found), 0) as n from processing_list where id = any($1)',
				[lists],
			)
			return Number(rows[0]!.n)
		},
		stop: async () => {
			stopped = true
			await loop
		},
	}
}

/** Child process: receives the CSV as /file-list does and confirms the import (a job). */
async function startImport(file: string, userId: string, name: string) {
	const { createReadStream } = await import('node:fs')
	const { db } = await import('../db/index.server.ts')
	const { loadAccountContext } = await import('../app/context.server.ts')
	const { receiveCsvUpload } = await import('../app/services/imports/uploads.server.ts')
	const { startCsvImport } = await import('../app/services/imports/start-import.server.ts')
	const { guessMapping, LEAD_FIELD_KEYS } = await import('../app/services/imports/mapping.ts')
	const { stopBoss } = await import('../app/jobs/boss.server.ts')
	const user = await db
		.selectFrom('auth.users')
		.select(['id', 'email'])
		.where('id', '=', userId)
		.executeTakeFirstOrThrow()
	const account = await loadAccountContext(db, { id: user.id, email: user.email ?? '' })
	const upload = await receiveCsvUpload({
		stream: createReadStream(file),
		fileName: 'job.csv',
		accountId: account.accountId!,
		maxBytes: 1 << 30,
	})
	const guess = guessMapping(upload.head[0]!, upload.head.slice(1))
	const { listId } = await startCsvImport(
		account,
		{
			intent: 'import',
			uploadId: upload.id,
			name,
			hasHeader: true,
			keepExtra: true,
			...Object.fromEntries(LEAD_FIELD_KEYS.map((k) => [k, guess[k]])),
			email: guess.email!,
		},
		null,
	)
	await stopBoss()
	await db.destroy()
	console.log(listId)
}

async function generateCsv(file: string, rows: number) {
	const out = createWriteStream(file)
	out.write('Email,First Name,Last Name,Job Title,Company\n')
	let buffer = ''
	for (let i = 0; i < rows; i++) {
		buffer += `job${i}@firm${i % 3000}.com,Ada,Job${i % 5003},CTO,"Firm ${i % 3000}, Ltd."\n`
		if (buffer.length > 1 << 16) {
			if (!out.write(buffer)) await once(out, 'drain')
			buffer = ''
		}
	}
	out.end(buffer)
	await once(out, 'finish')
}
