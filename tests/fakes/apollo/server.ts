// A local fake of Apollo's official API (organizations/enrich and auth/health). It follows,
// and must be no stricter or looser than:
// - reference/emailbison-apify-apollo.md and docs.apollo.io: x-api-key auth (401 "Invalid
//   access credentials." on the data endpoints), unknown domains answered 200 with no
//   organization;
// - GET /auth/health answers 200 {"healthy":true,"is_logged_in":false} for a wrong key (the
//   admin health check reads is_logged_in; the service never answers 401 there);
// - 403 error_code API_INACCESSIBLE for a key whose plan does not reach the endpoint
//   (`setInaccessible`);
// - 429 without Retry-After, on minute, hourly and daily windows (docs.apollo.io/reference/
//   rate-limits: per-plan limits per minute, hour and day, "429 over the limit"); every
//   answer carries x-rate-limit-{minute,hourly,24-hour} and x-{minute,hourly,24-hour}-
//   requests-left (as live answers show them, and as clients that read them name them, e.g.
//   @memberjunction/actions-apollo's ApolloRateLimits), the spent window's at 0, and no reset
//   time: whether a window is fixed on the clock or rolls is unconfirmed (third parties say
//   fixed), so a spent window here simply lasts as long as the test says (`exhaustWindow`);
// - fault knobs: 200 answers that are not JSON (`malformedNext`), as a proxy gives them.
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export type FakeApollo = {
	url: string
	apiKey: string
	calls: string[]
	/** answer 429 to the next N enrich calls (the minute window spent, no Retry-After) */
	rateLimitNext(n: number): void
	/** the window's requests are used up for `ms` milliseconds: every enrich call answers 429 */
	exhaustWindow(window: 'minute' | 'hour' | 'day', ms: number): void
	/** answer 403 API_INACCESSIBLE to enrich calls (the key's plan) */
	setInaccessible(on: boolean): void
	/** the next N enrich calls answer 200 with an HTML page */
	malformedNext(n: number): void
	close(): Promise<void>
}

export function fakeOrganization(domain: string) {
	const name = domain
		.split('.')[0]!
		.replace(/(^|-)(\w)/g, (_, __, c: string) => ` ${c.toUpperCase()}`)
		.trim()
	return {
		id: `org-${domain}`,
		name,
		website_url: `http://www.${domain}`,
		primary_domain: domain,
		industry: 'information technology & services',
		estimated_num_employees: 10 + domain.length * 7,
		city: 'Austin',
		state: 'Texas',
		country: 'United States',
		linkedin_url: `http://www.linkedin.com/company/${domain.split('.')[0]}`,
		short_description: `${name} builds software.`,
	}
}

export async function startFakeApollo(
	options: { apiKey?: string; port?: number } = {},
): Promise<FakeApollo> {
	const apiKey = options.apiKey ?? 'apollo-test-key'
	const calls: string[] = []
	let limited = 0
	let inaccessible = false
	let malformed = 0
	const spentUntil = { minute: 0, hour: 0, day: 0 }
	const LIMITS = { minute: 200, hour: 400, day: 2000 }
	const used = { minute: 0, hour: 0, day: 0 }
	const server = http.createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://fake')
		calls.push(`${req.method} ${url.pathname}${url.search}`)
		const now = Date.now()
		const left = (window: 'minute' | 'hour' | 'day') =>
			spentUntil[window] > now ? 0 : Math.max(0, LIMITS[window] - used[window])
		const windowHeaders = () => ({
			'x-rate-limit-minute': String(LIMITS.minute),
			'x-minute-requests-left': String(left('minute')),
			'x-rate-limit-hourly': String(LIMITS.hour),
			'x-hourly-requests-left': String(left('hour')),
			'x-rate-limit-24-hour': String(LIMITS.day),
			'x-24-hour-requests-left': String(left('day')),
		})
		const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
			res.writeHead(status, { 'Content-Type': 'application/json', ...windowHeaders(), ...headers })
			res.end(JSON.stringify(body))
		}
		if (url.pathname.endsWith('/auth/health'))
			return send(200, { healthy: true, is_logged_in: req.headers['x-api-key'] === apiKey })
		if (req.headers['x-api-key'] !== apiKey) {
			return send(401, { error: 'Invalid access credentials.', error_code: 'INVALID_API_KEY' })
		}
		if (req.method === 'GET' && url.pathname.endsWith('/organizations/enrich')) {
			if (inaccessible)
				return send(403, {
					error:
						'api/v1/organizations/enrich is not accessible with this api_key on a free plan. Please upgrade your plan from https://app.apollo.io/.',
					error_code: 'API_INACCESSIBLE',
				})
			if (limited > 0) {
				limited -= 1
				spentUntil.minute = Math.max(spentUntil.minute, now + 1)
				const body = {
					error:
						'The maximum number of api calls allowed for api/v1/organizations/enrich is 200 times per minute. Please upgrade your plan from https://app.apollo.io/#/settings/plans/upgrade.',
				}
				res.writeHead(429, {
					'Content-Type': 'application/json',
					...windowHeaders(),
					'x-minute-requests-left': '0',
				})
				return res.end(JSON.stringify(body))
			}
			for (const window of ['day', 'hour', 'minute'] as const)
				if (spentUntil[window] > now)
					return send(429, {
						error: `The maximum number of api calls allowed for api/v1/organizations/enrich is ${LIMITS[window]} times per ${window === 'day' ? '24 hours' : window}.`,
					})
			if (malformed > 0) {
				malformed -= 1
				res.writeHead(200, { 'Content-Type': 'text/html' })
				return res.end('<html><body>Bad gateway</body></html>')
			}
			const domain = (url.searchParams.get('domain') ?? '').toLowerCase()
			if (!domain) return send(422, { error: 'domain is required' })
			if (domain.startsWith('unknown')) return send(200, {})
			return send(200, { organization: fakeOrganization(domain) })
		}
		return send(404, { error: 'Not found' })
	})
	await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve))
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`,
		apiKey,
		calls,
		rateLimitNext(n) {
			limited = n
		},
		exhaustWindow(window, ms) {
			spentUntil[window] = Date.now() + ms
		},
		setInaccessible(on) {
			inaccessible = on
		},
		malformedNext(n) {
			malformed = n
		},
		close: () => new Promise((resolve) => server.close(() => resolve())),
	}
}

if (import.meta.main) {
	const fake = await startFakeApollo({ port: Number(process.argv[2] ?? 0) })
	console.log(`fake Apollo at ${fake.url} (key ${fake.apiKey})`)
}
