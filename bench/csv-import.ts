// `npm run bench:csv`: a generated 1,000,000-row CSV imported through the real import code
// path (the upload checks that /file-list runs as the file streams in, then the csv-import
// job in a worker) into a fresh embedded PostgreSQL, against `psql \copy` of the same file
// into a table of the same shape (leads' columns, defaults, indexes and foreign keys), in the
// same run. Prints rows per second for both, their ratio, and the importing process's peak RSS.
// BENCH_ROWS changes the row count.
import { execFile, spawn } from 'node:child_process'
import {
	createReadStream,
	createWriteStream,
	mkdirSync,
	mkdtempSync,
	chmodSync,
	rmSync,
	statSync,
	writeFileSync,
} from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { once } from 'node:events'
import { promisify } from 'node:util'

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000)
const PSQL = process.env.PSQL ?? '/usr/bin/psql'

if (process.argv[2] === '--import') {
	await importChild(process.argv[3]!, process.argv[4]!)
} else {
	await main()
}

async function main() {
	const { startEmbeddedPostgres } = await import('../db/embedded.ts')
	const { createDb } = await import('../db/index.server.ts')
	const { migrateToLatest } = await import('../db/migrate.ts')
	const { freePort } = await import('../tests/support/free-port.ts')

	const dir = mkdtempSync(path.join(tmpdir(), 'leadsmith-bench-csv-'))
	chmodSync(dir, 0o755)
	const file = path.join(dir, 'leads.csv')
	let stopDatabase = async () => {}
	try {
		const generated = Date.now()
		await generateCsv(file, ROWS)
		const bytes = statSync(file).size
		console.log(
			`generated ${ROWS.toLocaleString('en')} rows, ${(bytes / 1e6).toFixed(1)} MB in ${((Date.now() - generated) / 1000).toFixed(1)} s`,
		)

		const database = await startEmbeddedPostgres({
			dir: path.join(dir, 'pg'),
			port: await freePort(),
			persistent: false,
		})
		stopDatabase = database.stop
		const db = createDb(database.url, { max: 2 })
		await migrateToLatest(db)
		const { sql } = await import('kysely')
		const userId = '00000000-0000-4000-8000-000000000001'
		const copyListId = '00000000-0000-4000-8000-0000000000c0'
		await sql`insert into auth.users (id, aud, role, email, encrypted_password, created_at, updated_at)
			values (${userId}, 'authenticated', 'authenticated', 'bench@example.com', '', now(), now())`.execute(
			db,
		)
		await sql`insert into profiles (user_id) values (${userId})`.execute(db)
		await sql`insert into processing_list (id, user_id, name, source_type) values (${copyListId}, ${userId}, 'psql copy', 'upload')`.execute(
			db,
		)
		// The same shape as leads: columns, defaults, checks, indexes, and its foreign keys.
		await sql
			.raw(
				`create table leads_copy (like leads including all);
				alter table leads_copy
					alter column list_id set default '${copyListId}',
					alter column user_id set default '${userId}',
					add foreign key (list_id) references processing_list(id) on delete cascade,
					add foreign key (user_id) references auth.users(id) on delete cascade,
					add foreign key (workspace_id) references workspaces(id) on delete set null;
				checkpoint;`,
			)
			.execute(db)

		// 1. the baseline: psql \copy of the same file
		const copyStarted = process.hrtime.bigint()
		await promisify(execFile)(PSQL, [
			database.url,
			'-v',
			'ON_ERROR_STOP=1',
			'-c',
			`\\copy leads_copy (email, first_name, last_name, title, company_name, company_domain, linkedin_url, location, phone) from '${file}' with (format csv, header true)`,
		])
		const copySeconds = Number(process.hrtime.bigint() - copyStarted) / 1e9
		const copied = await sql<{ n: number }>`select count(*)::int as n from leads_copy`.execute(db)
		if (copied.rows[0]!.n !== ROWS) throw new Error(`psql copied ${copied.rows[0]!.n} rows`)
		await sql`checkpoint`.execute(db)

		// 2. the import, in a process of its own so that its peak RSS is the import's alone
		const child = spawn(process.execPath, [import.meta.filename, '--import', file, userId], {
			env: {
				...process.env,
				NODE_ENV: 'production',
				DATABASE_URL: database.url,
				DATA_DIR: path.join(dir, 'data'),
				LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
				WORKERS: '1',
			},
			stdio: ['ignore', 'pipe', 'inherit'],
		})
		let output = ''
		child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
		const [code] = (await once(child, 'exit')) as [number]
		if (code !== 0) throw new Error(`the import process exited with ${code}:\n${output}`)
		const lines = output.trim().split('\n')
		for (const line of lines) if (!line.startsWith('RESULT ')) console.error(line)
		const imported = JSON.parse(
			lines.find((l) => l.startsWith('RESULT '))!.slice('RESULT '.length),
		) as ImportResult

		const copyRate = Math.round(ROWS / copySeconds)
		const result = {
			date: new Date().toISOString(),
			// the machine's load (1, 5 and 15 minutes) when the run ended: both figures share it
			loadAverage: loadavg().map((l) => round(l, 1)),
			rows: ROWS,
			fileBytes: bytes,
			psqlCopy: { seconds: round(copySeconds), rowsPerSecond: copyRate },
			import: {
				seconds: round(imported.uploadSeconds + imported.jobSeconds),
				uploadCheckSeconds: round(imported.uploadSeconds),
				jobSeconds: round(imported.jobSeconds),
				rowsPerSecond: Math.round(ROWS / (imported.uploadSeconds + imported.jobSeconds)),
				jobRowsPerSecond: Math.round(ROWS / imported.jobSeconds),
				peakRssMB: imported.peakRssMB,
				rssByPhaseMB: imported.rssByPhaseMB,
				imported: imported.imported,
			},
			ratio: round(ROWS / (imported.uploadSeconds + imported.jobSeconds) / copyRate, 3),
			jobOnlyRatio: round(ROWS / imported.jobSeconds / copyRate, 3),
			listPageMs: imported.listPageMs,
		}
		console.log(JSON.stringify(result, null, 2))
		console.log(
			`import: ${result.import.rowsPerSecond.toLocaleString('en')} rows/s (${result.import.seconds} s: upload checks ${result.import.uploadCheckSeconds} s + job ${result.import.jobSeconds} s), peak RSS ${result.import.peakRssMB} MB | ` +
				`psql \\copy: ${copyRate.toLocaleString('en')} rows/s (${result.psqlCopy.seconds} s) | ratio ${result.ratio} (job alone ${result.jobOnlyRatio})`,
		)
		mkdirSync('bench/results', { recursive: true })
		writeFileSync(`bench/results/csv-import-${Date.now()}.json`, JSON.stringify(result, null, 2))
		await db.destroy()
	} finally {
		await stopDatabase()
		rmSync(dir, { recursive: true, force: true })
	}
}

type ImportResult = {
	uploadSeconds: number
	jobSeconds: number
	peakRssMB: number
	/** the most seen while idle (app loaded, workers started), checking the upload, importing */
	rssByPhaseMB: { idle: number; upload: number; job: number }
	imported: number
	listPageMs: Record<string, number>
}

async function importChild(file: string, userId: string) {
	const { db } = await import('../db/index.server.ts')
	const { loadAccountContext } = await import('../app/context.server.ts')
	const { receiveCsvUpload } = await import('../app/services/imports/uploads.server.ts')
	const { startCsvImport } = await import('../app/services/imports/start-import.server.ts')
	const { guessMapping, LEAD_FIELD_KEYS } = await import('../app/services/imports/mapping.ts')
	const { startWorkers } = await import('../app/jobs/worker.server.ts')
	const { listLeadsPage, encodeCursor } = await import('../app/services/lists/leads-page.server.ts')

	const account = await loadAccountContext(db, { id: userId, email: 'bench@example.com' })
	const workers = await startWorkers({ concurrency: 1, drainSeconds: 5 })
	const rss = { idle: 0, upload: 0, job: 0 }
	let phase: keyof typeof rss = 'idle'
	const sample = () => {
		rss[phase] = Math.max(rss[phase], Math.round(process.memoryUsage.rss() / 1048576))
	}
	sample()
	const sampler = setInterval(sample, 20)
	phase = 'upload'

	// what /file-list does while the file streams in: UTF-8, quotes, rows, then the first rows
	const uploadStarted = process.hrtime.bigint()
	const upload = await receiveCsvUpload({
		// network-sized pieces, as the upload arrives
		stream: createReadStream(file, { highWaterMark: 64 * 1024 }),
		fileName: 'leads.csv',
		accountId: account.accountId!,
		maxBytes: 1 << 30,
	})
	const uploadSeconds = Number(process.hrtime.bigint() - uploadStarted) / 1e9

	sample()
	phase = 'job'
	const guess = guessMapping(upload.head[0]!, upload.head.slice(1))
	const jobStarted = process.hrtime.bigint()
	const { listId } = await startCsvImport(
		account,
		{
			intent: 'import',
			uploadId: upload.id,
			name: 'bench',
			hasHeader: true,
			keepExtra: true,
			...Object.fromEntries(LEAD_FIELD_KEYS.map((k) => [k, guess[k]])),
			email: guess.email!,
		},
		null,
	)
	let list
	for (;;) {
		list = await db
			.selectFrom('processing_list')
			.select(['status', 'found', 'error'])
			.where('id', '=', listId)
			.executeTakeFirstOrThrow()
		if (list.status >= 2) break
		await new Promise((r) => setTimeout(r, 100))
	}
	const jobSeconds = Number(process.hrtime.bigint() - jobStarted) / 1e9
	if (list.status !== 2 || list.found !== ROWS) {
		throw new Error(
			`the import ended with status ${list.status}, ${list.found} rows: ${list.error}`,
		)
	}
	sample()
	clearInterval(sampler)
	const peakRssMB = Math.round(process.resourceUsage().maxRSS / 1024)

	// the list page at this size: median of 5 of each
	const deep = await db
		.selectFrom('leads')
		.select('id')
		.where('list_id', '=', listId)
		.orderBy('id')
		.offset(Math.floor(ROWS * 0.9))
		.limit(1)
		.executeTakeFirstOrThrow()
	const pages: Record<string, URLSearchParams> = {
		first: new URLSearchParams(),
		'page at 90% (keyset)': new URLSearchParams({
			page: '18001',
			after: encodeCursor({ key: null, id: deep.id }),
		}),
		'by last name': new URLSearchParams({ sort: 'last_name' }),
		'by company, descending': new URLSearchParams({ sort: 'company', dir: 'desc' }),
		'search "person12345"': new URLSearchParams({ q: 'person12345' }),
		'search "zz" (no match)': new URLSearchParams({ q: 'zz' }),
	}
	const listPageMs: Record<string, number> = {}
	for (const [name, search] of Object.entries(pages)) {
		const times: number[] = []
		for (let i = 0; i < 5; i++) {
			const started = process.hrtime.bigint()
			await listLeadsPage(account, listId, search)
			times.push(Number(process.hrtime.bigint() - started) / 1e6)
		}
		listPageMs[name] = round(times.sort((a, b) => a - b)[2]!, 1)
	}

	await workers.stop()
	await db.destroy()
	const result: ImportResult = {
		uploadSeconds,
		jobSeconds,
		peakRssMB,
		rssByPhaseMB: rss,
		imported: list.found,
		listPageMs,
	}
	console.log(`RESULT ${JSON.stringify(result)}`)
}

/** Realistic lead rows: quoted company names with commas, some accents, unique emails. */
async function generateCsv(file: string, rows: number) {
	const out = createWriteStream(file)
	const first = [
		'Ada',
		'Grace',
		'José',
		'Zoë',
		'Linus',
		'Margaret',
		'Ken',
		'Barbara',
		'Dennis',
		'Frances',
	]
	const titles = [
		'Head of Sales',
		'CTO',
		'VP Marketing',
		'Founder & CEO',
		'Sales Director',
		'Growth Lead',
	]
	const cities = ['Berlin', 'London', 'New York', 'São Paulo', 'Paris', 'Toronto']
	out.write('Email,First Name,Last Name,Job Title,Company,Website,LinkedIn,City,Phone\n')
	let buffer = ''
	for (let i = 0; i < rows; i++) {
		const company = i % 5000
		buffer +=
			`person${i}@company${company}.com,${first[i % first.length]},Last${i % 7919},` +
			`${titles[i % titles.length]},"Company ${company}, Inc.",company${company}.com,` +
			`https://www.linkedin.com/in/person${i},${cities[i % cities.length]},+49 30 ${String(i).padStart(7, '0')}\n`
		if (buffer.length > 1 << 16) {
			if (!out.write(buffer)) await once(out, 'drain')
			buffer = ''
		}
	}
	out.end(buffer)
	await once(out, 'finish')
}

function round(value: number, digits = 2) {
	return Number(value.toFixed(digits))
}
