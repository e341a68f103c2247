// A local fake of Reacher (reacherhq/check-if-email-exists' HTTP server, self-hosted or the
// SaaS; reference/verification-deliverability-webhooks.md). It follows, and must be no
// stricter or looser than:
// - POST /v0/check_email {"to_email"} → 200 {input, is_reachable: safe|risky|invalid|unknown,
//   misc: {is_disposable, is_role_account}, mx: {accepts_mail, records}, smtp: {can_connect_smtp,
//   has_full_inbox, is_catch_all, is_deliverable, is_disabled}, syntax: {...}};
// - the SaaS's key in `Authorization` (401 without the right one), a self-hosted server's
//   shared secret in `x-reacher-secret`; either is accepted here;
// - fault knobs: slow answers (a check takes seconds), 429 with Retry-After, 200s that are not
//   JSON, no credits (the SaaS answers 429 {"error": "...quota..."}, UNCONFIRMED: a knob).
// A check counts (`checks`) only when its answer was written to a connection still open (a
// client that hung up first, e.g. a killed worker, never got it; a real provider may still
// bill such a check: at most the requests in flight at a kill).
import { startVerificationFake } from '../verification-knobs.ts'
import { isRole, outcomeOf, type VerifyFakeKnobs } from '../verify-outcomes.ts'

export type FakeReacher = VerifyFakeKnobs & { url: string; apiKey: string }

function checkOf(email: string) {
	const outcome = outcomeOf(email)
	const reachable =
		outcome === 'valid'
			? 'safe'
			: outcome === 'catch_all' || outcome === 'risky'
				? 'risky'
				: outcome === 'invalid'
					? 'invalid'
					: outcome === 'disposable'
						? 'risky'
						: 'unknown'
	return {
		input: email,
		is_reachable: reachable,
		misc: {
			is_disposable: outcome === 'disposable',
			is_role_account: isRole(email),
			gravatar_url: null,
		},
		mx: { accepts_mail: outcome !== 'invalid', records: ['mx.example.com.'] },
		smtp: {
			can_connect_smtp: true,
			has_full_inbox: false,
			is_catch_all: outcome === 'catch_all',
			is_deliverable: outcome === 'valid',
			is_disabled: false,
		},
		syntax: {
			address: email,
			domain: email.split('@')[1],
			is_valid_syntax: true,
			username: email.split('@')[0],
		},
	}
}

export async function startFakeReacher(
	options: { apiKey?: string; port?: number } = {},
): Promise<FakeReacher> {
	const apiKey = options.apiKey ?? 'reacher-test-key-9012'
	const fake = await startVerificationFake(options.port, ({ req, url, body, send, ...r }) => {
		if (url.pathname !== '/v0/check_email' || req.method !== 'POST')
			return send(404, { error: 'Not found' })
		if (req.headers.authorization !== apiKey && req.headers['x-reacher-secret'] !== apiKey)
			return send(401, { error: 'Unauthorized' })
		if (r.outOfCredits)
			return send(200, { error: 'You have used up your monthly quota of credits.' })
		let parsed: { to_email?: string }
		try {
			parsed = JSON.parse(body.toString('utf8'))
		} catch {
			return send(400, { error: 'Invalid JSON' })
		}
		const email = parsed.to_email ?? ''
		if (send(200, checkOf(email))) r.checked(email)
	})
	return { ...fake, apiKey }
}

if (import.meta.main) {
	const fake = await startFakeReacher({ port: Number(process.argv[2] ?? 0) })
	console.log(`fake Reacher at ${fake.url} (key ${fake.apiKey})`)
}
