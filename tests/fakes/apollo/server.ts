// A local fake of Apollo's official API (organizations/enrich and auth/health),
// following reference/emailbison-apify-apollo.md: x-api-key auth, 429 over a
// per-minute limit with Retry-After, unknown domains answered with no organization.
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export type FakeApollo = {
	url: string
	apiKey: string
	calls: string[]
	/** answer 429 to the next N enrich calls */
	rateLimitNext(n: number): void
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
	const server = http.createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://fake')
		calls.push(`${req.method} ${url.pathname}${url.search}`)
		const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
			res.writeHead(status, { 'Content-Type': 'application/json', ...headers })
			res.end(JSON.stringify(body))
		}
		if (req.headers['x-api-key'] !== apiKey) {
			return send(401, { error: 'Invalid access credentials.', error_code: 'INVALID_API_KEY' })
		}
		if (url.pathname.endsWith('/auth/health'))
			return send(200, { healthy: true, is_logged_in: true })
		if (req.method === 'GET' && url.pathname.endsWith('/organizations/enrich')) {
			if (limited > 0) {
				limited -= 1
				return send(
					429,
					{
						error:
							'The maximum number of api calls allowed for api/v1/organizations/enrich is 1000 times per minute.',
					},
					{ 'Retry-After': '1' },
				)
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
		close: () => new Promise((resolve) => server.close(() => resolve())),
	}
}

if (import.meta.main) {
	const fake = await startFakeApollo({ port: Number(process.argv[2] ?? 0) })
	console.log(`fake Apollo at ${fake.url} (key ${fake.apiKey})`)
}
