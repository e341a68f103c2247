// A local fake of Apify's API v2. It follows, and must be no stricter or looser than:
// - reference/emailbison-apify-apollo.md and docs.apify.com/api/v2: runs that take a few polls
//   to finish, the documented error bodies `{error:{type,message}}`, 429 with Retry-After;
// - datasets (docs.apify.com/api/v2/dataset-items-get, crawlee's DatasetDataOptions): a bare
//   JSON array paged with X-Apify-Pagination-Total/Offset/Limit/Count; `clean=1` leaves out
//   empty items and `#hidden` fields, so a page may hold fewer items than the limit while more
//   follow, and the total counts every item (empty ones too): paging goes by offset + limit;
// - 402 `actor-memory-limit-exceeded` when a token's runs hold all its memory (Apify's error
//   types; users report it for simultaneous runs), until runs end;
// - a 404 `record-not-found` on a run just started (apify-client-js waitForFinish retries it:
//   replicas lag);
// - the known actor fault of stopping at 25 results, and (fault knobs) 200 answers that are
//   not the documented shape, as a proxy or an outage page gives them.
import { randomUUID } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export type FakeScenario = {
	/** how many people the search "finds" (default: the input's totalRecords) */
	found?: number
	outcome?: 'SUCCEEDED' | 'FAILED' | 'TIMED-OUT' | 'ABORTED'
	statusMessage?: string
	/** status polls answered RUNNING before the run finishes */
	pollsBeforeFinish?: number
	/** the actor fault: the dataset stops at 25 items */
	stopAt25?: boolean
	/** the first N dataset page requests answer 429 */
	rateLimitPages?: number
	/** items without email, duplicates and odd shapes mixed in */
	messy?: boolean
	/** each dataset page answers after this many milliseconds */
	pageDelayMs?: number
	/** the first N starts answer 402 actor-memory-limit-exceeded (the token's memory is in use) */
	memoryLimitStarts?: number
	/** the first N status requests of a run answer 404 (the run is not on the replica yet) */
	notFoundPolls?: number
	/** the first N dataset pages answer 200 with an HTML page instead of JSON */
	malformedPages?: number
	/** dataset pages come without X-Apify-Pagination-Total */
	noTotalHeader?: boolean
}

type Run = {
	id: string
	actorId: string
	input: Record<string, unknown>
	status: string
	defaultDatasetId: string
	polls: number
	/** status requests answered 404 so far */
	notFound: number
	/** dataset pages answered malformed so far */
	malformed: number
	scenario: FakeScenario
	startedAt: string
	finishedAt: string | null
}

export type FakeApify = {
	url: string
	token: string
	calls: string[]
	runs: Map<string, Run>
	/** the scenario for runs whose input URL contains `match` ('' matches all) */
	scenario(match: string, scenario: FakeScenario): void
	/**
	 * the next run started awaits `hook` before its answer is sent (the run exists by then):
	 * a test kills the worker there
	 */
	afterNextStart(hook: () => Promise<void> | void): void
	close(): Promise<void>
}

export function fakePerson(i: number, messy = false) {
	const first = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Margaret', 'Ken'][i % 8]!
	const last = [
		'Lovelace',
		'Hopper',
		'Turing',
		'Dijkstra',
		'Liskov',
		'Knuth',
		'Hamilton',
		'Thompson',
	][(i >> 3) % 8]!
	const company = `Company ${Math.floor(i / 5)}`
	const domain = `company${Math.floor(i / 5)}.example.com`
	// an empty item (an actor that pushed {}): clean=1 leaves it out
	if (messy && i % 10 === 5) return {}
	if (messy && i % 10 === 3)
		return { name: `${first} ${last}`, title: 'CTO', organization: { name: company } }
	if (messy && i % 10 === 7) {
		// full name only, no first/last, and an upper-case duplicate of an earlier email
		return {
			name: `${first} ${last} Jr`,
			email: `person${i - 1}@${domain}`.toUpperCase(),
			title: 'VP Sales',
		}
	}
	return {
		id: `p${i}`,
		first_name: first,
		last_name: last,
		name: `${first} ${last}`,
		title: i % 2 ? 'Head of Growth' : 'CEO',
		email: `person${i}@${domain}`,
		email_status: i % 4 ? 'verified' : 'guessed',
		linkedin_url: `https://www.linkedin.com/in/person-${i}`,
		city: 'Berlin',
		state: 'Berlin',
		country: 'Germany',
		organization: {
			id: `o${i}`,
			name: company,
			website_url: `https://${domain}`,
			primary_domain: domain,
		},
	}
}

export function fakeCompany(i: number) {
	const domain = `company${i}.example.com`
	return {
		id: `o${i}`,
		name: `Company ${i}`,
		website_url: `https://www.${domain}`,
		primary_domain: domain,
		industry: 'computer software',
		estimated_num_employees: 20 + i,
		city: 'Paris',
		country: 'France',
		linkedin_url: `https://www.linkedin.com/company/company-${i}`,
	}
}

export async function startFakeApify(
	options: { token?: string; port?: number } = {},
): Promise<FakeApify> {
	const token = options.token ?? 'apify-test-token'
	const runs = new Map<string, Run>()
	const scenarios: { match: string; scenario: FakeScenario }[] = []
	const calls: string[] = []
	const rateLimited = new Map<string, number>()
	const busyStarts = new Map<FakeScenario, number>()
	let startHook: (() => Promise<void> | void) | null = null

	const send = (
		res: http.ServerResponse,
		status: number,
		body: unknown,
		headers: Record<string, string> = {},
	) => {
		res.writeHead(status, { 'Content-Type': 'application/json', ...headers })
		res.end(JSON.stringify(body))
	}
	const error = (res: http.ServerResponse, status: number, type: string, message: string) =>
		send(res, status, { error: { type, message } })
	const runData = (run: Run) => ({
		data: {
			id: run.id,
			actId: run.actorId,
			status: run.status,
			defaultDatasetId: run.defaultDatasetId,
			defaultKeyValueStoreId: `kv-${run.id}`,
			startedAt: run.startedAt,
			finishedAt: run.finishedAt,
			statusMessage: run.status === 'SUCCEEDED' ? 'Done' : (run.scenario.statusMessage ?? null),
		},
	})
	const items = (run: Run) => {
		const requested = Number(run.input.totalRecords ?? 100)
		let count = Math.min(run.scenario.found ?? requested, requested)
		if (run.scenario.stopAt25) count = Math.min(count, 25)
		// company-search actors answer with Apollo organizations
		if (run.actorId.includes('compan'))
			return Array.from({ length: count }, (_, i) => fakeCompany(i))
		return Array.from({ length: count }, (_, i) => fakePerson(i, run.scenario.messy))
	}

	const server = http.createServer(async (req, res) => {
		const url = new URL(req.url ?? '/', 'http://fake')
		calls.push(`${req.method} ${url.pathname}`)
		let raw = ''
		for await (const chunk of req) raw += chunk
		if (req.headers.authorization !== `Bearer ${token}`) {
			return error(res, 401, 'token-not-valid', 'Authentication token is not valid.')
		}
		const path = url.pathname

		if (req.method === 'GET' && path === '/v2/users/me')
			return send(res, 200, { data: { id: 'u1', username: 'tester' } })

		let match = path.match(/^\/v2\/acts\/([^/]+)\/runs$/)
		if (req.method === 'POST' && match) {
			let input: Record<string, unknown>
			try {
				input = JSON.parse(raw || '{}')
			} catch {
				return error(res, 400, 'invalid-input', 'Input is not valid JSON')
			}
			if (typeof input.url !== 'string')
				return error(res, 400, 'invalid-input', 'Field input.url is required')
			// A browser test cannot reach this process: it slows the dataset down through the search
			// itself (`fakePageDelayMs=1500` in the Apollo URL).
			const delay = /[?&]fakePageDelayMs=(\d+)/.exec(input.url)?.[1]
			const scenario =
				scenarios.findLast((s) => (input.url as string).includes(s.match))?.scenario ??
				(delay ? { pageDelayMs: Number(delay) } : {})
			const busy = busyStarts.get(scenario) ?? 0
			if (busy < (scenario.memoryLimitStarts ?? 0)) {
				busyStarts.set(scenario, busy + 1)
				return send(res, 402, {
					error: {
						type: 'actor-memory-limit-exceeded',
						message:
							'By launching this job you will exceed the memory limit of 32768MB for all your Actor runs and builds (currently used: 32768MB, requested: 4096MB).',
					},
				})
			}
			const run: Run = {
				id: randomUUID().slice(0, 17),
				notFound: 0,
				malformed: 0,
				actorId: decodeURIComponent(match[1]!),
				input,
				status: 'RUNNING',
				defaultDatasetId: randomUUID().slice(0, 17),
				polls: 0,
				scenario,
				startedAt: new Date().toISOString(),
				finishedAt: null,
			}
			runs.set(run.id, run)
			if (startHook) {
				const hook = startHook
				startHook = null
				await hook()
			}
			if (res.destroyed) return
			return send(res, 201, runData(run))
		}
		// the actor's runs, newest first, as Apify lists them (data.items)
		if (req.method === 'GET' && match) {
			const actorId = decodeURIComponent(match[1]!)
			const limit = Number(url.searchParams.get('limit') ?? 1000)
			const own = [...runs.values()].filter((r) => r.actorId === actorId)
			if (url.searchParams.get('desc') === '1') own.reverse()
			const items = own.slice(0, limit).map((r) => runData(r).data)
			return send(res, 200, {
				data: { total: own.length, offset: 0, limit, count: items.length, items },
			})
		}
		match = path.match(/^\/v2\/key-value-stores\/kv-([^/]+)\/records\/INPUT$/)
		if (req.method === 'GET' && match) {
			const run = runs.get(match[1]!)
			if (!run) return error(res, 404, 'record-not-found', 'Record was not found')
			return send(res, 200, run.input)
		}

		match = path.match(/^\/v2\/actor-runs\/([^/]+)(\/abort)?$/)
		if (match) {
			const run = runs.get(match[1]!)
			if (!run) return error(res, 404, 'record-not-found', 'Actor run was not found')
			if (req.method === 'GET' && run.notFound < (run.scenario.notFoundPolls ?? 0)) {
				run.notFound += 1
				return error(res, 404, 'record-not-found', 'Actor run was not found')
			}
			if (req.method === 'POST' && match[2]) {
				if (run.status === 'RUNNING') {
					run.status = 'ABORTED'
					run.finishedAt = new Date().toISOString()
				}
				return send(res, 200, runData(run))
			}
			if (run.status === 'RUNNING') {
				run.polls += 1
				if (run.polls > (run.scenario.pollsBeforeFinish ?? 1)) {
					run.status = run.scenario.outcome ?? 'SUCCEEDED'
					run.finishedAt = new Date().toISOString()
				}
			}
			return send(res, 200, runData(run))
		}

		match = path.match(/^\/v2\/datasets\/([^/]+)\/items$/)
		if (req.method === 'GET' && match) {
			const run = [...runs.values()].find((r) => r.defaultDatasetId === match![1])
			if (!run) return error(res, 404, 'record-not-found', 'Dataset was not found')
			const limited = rateLimited.get(run.id) ?? 0
			if (limited < (run.scenario.rateLimitPages ?? 0)) {
				rateLimited.set(run.id, limited + 1)
				res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '1' })
				return res.end(
					JSON.stringify({ error: { type: 'rate-limit-exceeded', message: 'Too many requests' } }),
				)
			}
			if (run.scenario.pageDelayMs)
				await new Promise((r) => setTimeout(r, run.scenario.pageDelayMs))
			if (run.malformed < (run.scenario.malformedPages ?? 0)) {
				run.malformed += 1
				res.writeHead(200, { 'Content-Type': 'text/html' })
				return res.end('<html><body>Service temporarily unavailable</body></html>')
			}
			const all = run.status === 'SUCCEEDED' || run.status === 'RUNNING' ? items(run) : []
			const offset = Number(url.searchParams.get('offset') ?? 0)
			const limit = Math.min(Number(url.searchParams.get('limit') ?? 1000), 1000)
			const clean = ['1', 'true'].includes(url.searchParams.get('clean') ?? '')
			// clean=1: empty items left out of the page (not out of the offsets), and #hidden fields
			const page = all
				.slice(offset, offset + limit)
				.filter((item) => !clean || Object.keys(item).length > 0)
				.map((item) =>
					clean
						? Object.fromEntries(Object.entries(item).filter(([key]) => !key.startsWith('#')))
						: item,
				)
			return send(res, 200, page, {
				...(run.scenario.noTotalHeader ? {} : { 'X-Apify-Pagination-Total': String(all.length) }),
				'X-Apify-Pagination-Offset': String(offset),
				'X-Apify-Pagination-Limit': String(limit),
				'X-Apify-Pagination-Count': String(page.length),
			})
		}
		return error(res, 404, 'page-not-found', 'Not found')
	})
	await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve))
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		token,
		calls,
		runs,
		scenario(match, scenario) {
			scenarios.push({ match, scenario })
		},
		afterNextStart(hook) {
			startHook = hook
		},
		close: () => new Promise((resolve) => server.close(() => resolve())),
	}
}

// `node tests/fakes/apify/server.ts [port]`: run it standalone (e2e, manual checks).
if (import.meta.main) {
	const fake = await startFakeApify({ port: Number(process.argv[2] ?? 0) })
	console.log(`fake Apify at ${fake.url} (token ${fake.token})`)
}
