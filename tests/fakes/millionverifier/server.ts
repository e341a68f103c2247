// A local fake of MillionVerifier's API (reference/verification-deliverability-webhooks.md;
// millionverifier.com's API docs). It follows, and must be no stricter or looser than:
// - GET /api/v3/?api=KEY&email=E&timeout=T → 200 {email, quality, result, resultcode,
//   subresult, free, role, didyoumean, credits, executiontime, error}; result ok (1),
//   catch_all (2), unknown (3), error (4), disposable (5), invalid (6);
// - a bad key or no credits: HTTP 200 with result "error" and an `error` text (no email);
// - GET /api/v3/credits?api=KEY → {credits};
// - bulk file API on its own host (UNCONFIRMED paths): POST /bulkapi/v2/upload?key= (multipart
//   file_contents) → {file_id, ...}, GET /bulkapi/v2/fileinfo?key=&file_id= → {status,
//   percent}, GET /bulkapi/v2/download?key=&file_id=&filter=all → CSV;
// - fault knobs: slow answers, 429 with Retry-After, 200s that are not JSON, no credits.
// A check counts (`checks`) only when its answer was written to a connection still open (a
// client that hung up first, e.g. a killed worker, never got it; a real provider may still
// bill such a check: at most the requests in flight at a kill).
import { startVerificationFake } from '../verification-knobs.ts'
import { isRole, outcomeOf, type VerifyFakeKnobs } from '../verify-outcomes.ts'

export type FakeMillionVerifier = VerifyFakeKnobs & { url: string; bulkUrl: string; apiKey: string }

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
	const files = new Map<string, { emails: string[]; polls: number }>()
	let nextFile = 1
	const fake = await startVerificationFake(options.port, ({ req, url, body, send, ...r }) => {
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
			if (r.outOfCredits) return keyError('Insufficient credits')
			const emails = body
				.toString('utf8')
				.split(/\r?\n/)
				.map((l) => l.trim())
				.filter((l) => l.includes('@') && !l.startsWith('--') && !/^content-/i.test(l))
			const id = String(nextFile++)
			files.set(id, { emails, polls: 0 })
			return send(200, { file_id: id, file_name: 'list.csv', status: 'in_progress' })
		}
		if (url.pathname === '/bulkapi/v2/fileinfo') {
			const file = files.get(url.searchParams.get('file_id') ?? '')
			if (!file) return send(200, { error: 'File not found' })
			file.polls += 1
			const done = file.polls >= 2
			return send(200, {
				file_id: url.searchParams.get('file_id'),
				status: done ? 'finished' : 'in_progress',
				percent: done ? 100 : 50,
			})
		}
		if (url.pathname === '/bulkapi/v2/download') {
			const file = files.get(url.searchParams.get('file_id') ?? '')
			if (!file) return send(200, { error: 'File not found' })
			const rows = file.emails.map((e) => {
				const a = answerFor(e)
				return `${e},${a.quality},${a.result},${a.free},${a.role}`
			})
			if (send(200, ['email,quality,result,free,role', ...rows].join('\n')))
				r.checked(...file.emails)
			return
		}
		send(404, { error: 'Not found' })
	})
	return { ...fake, bulkUrl: fake.url, apiKey }
}

if (import.meta.main) {
	const fake = await startFakeMillionVerifier({ port: Number(process.argv[2] ?? 0) })
	console.log(`fake MillionVerifier at ${fake.url} (key ${fake.apiKey})`)
}
