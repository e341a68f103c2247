// A local fake of ZeroBounce's API v2 (reference/verification-deliverability-webhooks.md;
// zerobounce.net's API docs). It follows, and must be no stricter or looser than:
// - GET /v2/validate?api_key=&email=&ip_address= → 200 {address, status, sub_status,
//   free_email, did_you_mean, mx_found, ...}; status valid, invalid, catch-all, unknown,
//   spamtrap, abuse, do_not_mail; sub_status disposable, role_based, toxic, ...;
// - POST /v2/validatebatch (its bulk host) {api_key, email_batch: [{email_address,
//   ip_address}]} → {email_batch: [...], errors: [...]}; more than 100 emails is refused;
// - errors as HTTP 200 with an `error` field ("Invalid API Key or your account ran out of
//   credits"); GET /v2/getcredits?api_key= → {Credits: "N"}, "-1" for a bad key;
// - fault knobs: slow answers, 429 with Retry-After, 200s that are not JSON, no credits.
// A check counts (`checks`) only when its answer was written to a connection still open (a
// client that hung up first, e.g. a killed worker, never got it; a real provider may still
// bill such a check: at most the requests in flight at a kill).
import { startVerificationFake } from '../verification-knobs.ts'
import { isRole, outcomeOf, type VerifyFakeKnobs } from '../verify-outcomes.ts'

export type FakeZeroBounce = VerifyFakeKnobs & {
	url: string
	bulkUrl: string
	apiKey: string
	/** emails per validatebatch request, as they came */
	batches: number[]
}

const KEY_ERROR = 'Invalid API Key or your account ran out of credits'

function validation(email: string) {
	const outcome = outcomeOf(email)
	const [status, sub_status] =
		outcome === 'catch_all'
			? ['catch-all', '']
			: outcome === 'disposable'
				? ['do_not_mail', 'disposable']
				: outcome === 'risky'
					? ['spamtrap', '']
					: outcome === 'error'
						? ['unknown', 'timeout_exceeded']
						: outcome === 'valid' && isRole(email)
							? ['do_not_mail', 'role_based']
							: outcome === 'invalid'
								? ['invalid', 'mailbox_not_found']
								: [outcome, '']
	return {
		address: email,
		status,
		sub_status,
		account: email.split('@')[0],
		domain: email.split('@')[1],
		did_you_mean: null,
		domain_age_days: '9000',
		free_email: /@(gmail|yahoo)\./.test(email),
		mx_found: 'true',
		mx_record: 'mx.example.com',
		smtp_provider: 'example',
		firstname: null,
		lastname: null,
		gender: null,
		processed_at: new Date().toISOString().replace('T', ' ').slice(0, 23),
	}
}

export async function startFakeZeroBounce(
	options: { apiKey?: string; port?: number } = {},
): Promise<FakeZeroBounce> {
	const apiKey = options.apiKey ?? 'zb-test-key-5678'
	const batches: number[] = []
	const fake = await startVerificationFake(options.port, ({ req, url, body, send, ...r }) => {
		if (url.pathname === '/v2/getcredits') {
			const ok = url.searchParams.get('api_key') === apiKey
			return send(200, { Credits: ok ? (r.outOfCredits ? '0' : '1000') : '-1' })
		}
		if (url.pathname === '/v2/validate') {
			if (url.searchParams.get('api_key') !== apiKey || r.outOfCredits)
				return send(200, { error: KEY_ERROR })
			const email = url.searchParams.get('email') ?? ''
			if (send(200, validation(email))) r.checked(email)
			return
		}
		if (url.pathname === '/v2/validatebatch' && req.method === 'POST') {
			let parsed: { api_key?: string; email_batch?: { email_address?: string }[] }
			try {
				parsed = JSON.parse(body.toString('utf8'))
			} catch {
				return send(400, { error: 'Invalid request' })
			}
			if (parsed.api_key !== apiKey || r.outOfCredits) return send(200, { error: KEY_ERROR })
			const emails = (parsed.email_batch ?? []).map((e) => e.email_address ?? '')
			if (emails.length > 100)
				return send(200, { error: 'The email_batch can contain at most 100 emails.' })
			batches.push(emails.length)
			const answered = emails.filter((e) => outcomeOf(e) !== 'error')
			const errors = emails
				.filter((e) => outcomeOf(e) === 'error')
				.map((e) => ({ error: 'Unable to validate this email at this time', email_address: e }))
			if (send(200, { email_batch: answered.map(validation), errors })) r.checked(...emails)
			return
		}
		send(404, { error: 'Not found' })
	})
	return { ...fake, bulkUrl: fake.url, apiKey, batches }
}

if (import.meta.main) {
	const fake = await startFakeZeroBounce({ port: Number(process.argv[2] ?? 0) })
	console.log(`fake ZeroBounce at ${fake.url} (key ${fake.apiKey})`)
}
