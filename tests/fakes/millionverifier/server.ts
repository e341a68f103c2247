// A local fake of MillionVerifier's API (reference/verification-deliverability-webhooks.md;
// millionverifier.com's API docs). It follows, and must be no stricter or looser than:
// - GET /api/v3/?api=KEY&email=E&timeout=T → 200 {email, quality, result, resultcode,
//   subresult, free, role, didyoumean, credits, executiontime, error}; result ok (1),
//   catch_all (2), unknown (3), error (4), disposable (5), invalid (6);
// - a bad key or no credits: HTTP 200 with result "error" and an `error` text (no email);
// - GET /api/v3/credits?api=KEY → {credits};
// - bulk file API on its own host (operations bulk-upload, bulk-fileinfo, bulk-download and
//   bulk-filelist of MillionVerifier's API reference; paths as its published clients call them):
//   POST /bulkapi/v2/upload?key= (multipart `file_contents`, a CSV or TXT of emails) → {file_id,
//   file_name, status: "in_progress", ...}; GET /bulkapi/v2/fileinfo?key=&file_id= → {file_id,
//   status: in_progress | finished | canceled | error, percent, ...}; GET
//   /bulkapi/v2/download?key=&file_id=&filter=all → CSV (email,quality,result,free,role with
//   free/role as yes/no); GET /bulkapi/v2/filelist?key=&name= → {files: [...], total};
//   a bad key, no credits or an unknown file: HTTP 200 with `{error}`. A file is processed
//   slowly: `setBulkRate(emails a second)`, an account's files one after the other (a file
//   waits, at 0 %, for the ones uploaded before it; a download before it finishes answers an error);
//   `bulkUnsupported(true)` answers the bulk paths 404 (a provider without them);
// - fault knobs: slow answers, 429 with Retry-After, 200s that are not JSON, no credits.
// A check counts (`checks`) only when its answer was written to a connection still open (a
// client that hung up first, e.g. a killed worker, never got it; a real provider may still
// bill such a check: at most the requests in flight at a kill).
import { startVerificationFake } from '../verification-knobs.ts'
import { isRole, outcomeOf, type VerifyFakeKnobs } from '../verify-outcomes.ts'

export type FakeMillionVerifier = VerifyFakeKnobs & {
	url: string
	bulkUrl: string
	apiKey: string
	/** emails a second the account's files are processed at, one after the other (Infinity: at once) */
	setBulkRate(perSecond: number): void
	/** the bulk paths answer 404, as if the provider had none */
	bulkUnsupported(on: boolean): void
	/** files uploaded, by id */
	files: Map<string, { name: string; emails: string[]; at: number; downloads: number }>
}

const RESULT_CODES = { ok: 1, catch_all: 2, unknown: 3, error: 4, disposable: 5, invalid: 6 }

function answerFor(email: string) {
	const outcome = outcomeOf(email)
	const result =
		outcome === 'valid' || outcome === 'risky' ? 'ok' : outcome === 'error' ? 'error' : outcome
	return {
		email,
		quality: outcome === 'risky' ? 'risky' : outcome === 'valid' ? 'good' : 'bad',
		result,
		resultcode: RESULT_CODES[result as keyof typeof RESULT_CODES],
		subresult: result === 'error' ? 'internal_error' : result,
		free: /@(gmail|yahoo)\./.test(email),
		role: isRole(email),
		didyoumean: '',
		credits: 1000,
		executiontime: 1,
		error: result === 'error' ? 'Temporary error, please try again' : '',
		livemode: true,
	}
}

export async function startFakeMillionVerifier(
	options: { apiKey?: string; port?: number } = {},
): Promise<FakeMillionVerifier> {
	const apiKey = options.apiKey ?? 'mv-test-key-1234'
	const files = new Map<string, { name: string; emails: string[]; at: number; downloads: number }>()
	let bulkRate = Infinity
	// when the files uploaded so far are all processed (the account's queue)
	let queueFreeAt = 0
	let noBulk = false
	let nextFile = 1
	const progress = (file: { emails: string[]; at: number }) =>
		file.emails.length === 0 || bulkRate === Infinity
			? 100
			: Math.min(
					100,
					Math.floor(
						((Math.max(0, Date.now() - file.at) / 1000) * bulkRate * 100) / file.emails.length,
					),
				)
	const info = (id: string, file: { name: string; emails: string[]; at: number }) => {
		const percent = progress(file)
		return {
			file_id: Number(id),
			file_name: file.name,
			status: percent >= 100 ? 'finished' : 'in_progress',
			unique_emails: file.emails.length,
			percent,
			total_rows: file.emails.length,
			verified: Math.floor((file.emails.length * percent) / 100),
			unverified: file.emails.length - Math.floor((file.emails.length * percent) / 100),
			createdate: new Date(file.at).toISOString().slice(0, 19).replace('T', ' '),
			error: '',
		}
	}
	const fake = await startVerificationFake(options.port, ({ req, url, body, send, ...r }) => {
		if (noBulk && url.pathname.startsWith('/bulkapi/')) return send(404, 'Not Found')
		const key = url.searchParams.get('api') ?? url.searchParams.get('key')
		const keyError = (text: string) => send(200, { result: 'error', error: text, credits: 0 })
		if (key !== apiKey) return keyError('Invalid API key')
		if (url.pathname === '/api/v3/credits') return send(200, { credits: r.outOfCredits ? 0 : 1000 })
		if (url.pathname === '/api/v3/' || url.pathname === '/api/v3') {
			if (r.outOfCredits) return keyError('Insufficient credits')
			const email = url.searchParams.get('email') ?? ''
			if (send(200, answerFor(email))) r.checked(email)
			return
		}
		if (url.pathname === '/bulkapi/v2/upload' && req.method === 'POST') {
			if (r.outOfCredits) return send(200, { error: 'Insufficient credits' })
			const text = body.toString('utf8')
			const name = /filename="([^"]*)"/.exec(text)?.[1] ?? 'file.csv'
			const emails = text
				.split(/\r?\n/)
				.map((l) => l.trim())
				.filter((l) => l.includes('@') && !l.startsWith('--') && !/^content-/i.test(l))
			const id = String(nextFile++)
			// processing starts when the account's earlier files are done
			const at = Math.max(Date.now(), queueFreeAt)
			if (bulkRate !== Infinity) queueFreeAt = at + (emails.length / bulkRate) * 1000
			files.set(id, { name, emails, at, downloads: 0 })
			return send(200, info(id, files.get(id)!))
		}
		if (url.pathname === '/bulkapi/v2/filelist') {
			const name = url.searchParams.get('name')
			const found = [...files].filter(([, f]) => !name || f.name === name)
			return send(200, { files: found.map(([id, f]) => info(id, f)), total: found.length })
		}
		const id = url.searchParams.get('file_id') ?? ''
		const file = files.get(id)
		if (url.pathname === '/bulkapi/v2/fileinfo') {
			if (!file) return send(200, { error: 'file_not_found' })
			return send(200, info(id, file))
		}
		if (url.pathname === '/bulkapi/v2/download') {
			if (!file) return send(200, { error: 'file_not_found' })
			if (progress(file) < 100) return send(200, { error: 'file is not finished yet' })
			const rows = file.emails.map((e) => {
				const a = answerFor(e)
				return `${e},${a.quality},${a.result},${a.free ? 'yes' : 'no'},${a.role ? 'yes' : 'no'}`
			})
			const delivered = send(200, ['email,quality,result,free,role', ...rows].join('\n'))
			// the provider checked each email of a file once, however often it is downloaded
			if (delivered && file.downloads++ === 0) r.checked(...file.emails)
			return
		}
		send(404, { error: 'Not found' })
	})
	return {
		...fake,
		bulkUrl: fake.url,
		apiKey,
		files,
		setBulkRate: (perSecond) => void (bulkRate = perSecond),
		bulkUnsupported: (on) => void (noBulk = on),
	}
}

if (import.meta.main) {
	const fake = await startFakeMillionVerifier({ port: Number(process.argv[2] ?? 0) })
	console.log(`fake MillionVerifier at ${fake.url} (key ${fake.apiKey})`)
}
