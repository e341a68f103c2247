// A local fake of an EmailBison instance. It follows, and must be no stricter or looser than:
// - reference/emailbison-apify-apollo.md and EmailBison's API reference
//   (dedi.emailbison.com/api/reference, docs.emailbison.com): Bearer auth; JSON; 15 a page with
//   meta.last_page; workspaces v1.1, switch-workspace and api-tokens; create-or-update/multiple
//   takes at most 500 leads; first_name and email required (a missing last name is accepted,
//   as the service accepts it); 422 Laravel-style naming the rows ("leads.3.email"), or, as
//   the service also answers, naming none (`setUnnamedRowErrors`); 429 with Retry-After;
// - the super-admin key follows its current workspace, which switch-workspace changes for
//   everyone using the key (shared server state: parallel switching puts leads into the wrong
//   workspace, and tests see it); api-user keys are bound to the workspace they were minted
//   in, and a campaign of another workspace answers 403 "... does not match the workspace ...";
// - attach-leads with allow_parallel_sending:false skips leads in sequence in another active
//   campaign and answers 200 all the same; a call that adds none answers 422 "No leads were
//   added because they are either in other sequences, have previously bounced, or
//   unsubscribed." (as users report it live);
// - leads attached to an active campaign show in GET /api/campaigns/{id}/leads only after the
//   sync delay ("up to 5 minutes", docs.emailbison.com/campaigns/adding-leads-to-a-campaign;
//   `setSyncDelay`); that listing honours per_page up to `maxPerPage` (unconfirmed: 15 means
//   an instance that ignores it);
// - fault knobs: 200 answers that are not the documented JSON (`malformedNext`), as a proxy
//   or an outage page gives them;
// - blacklists (reference: `GET/POST/DELETE /api/blacklisted-emails` and
//   `/api/blacklisted-domains`; whether they are per workspace or instance-wide is UNCONFIRMED:
//   keys are workspace-scoped, so here they are per workspace): POST `{email}` / `{domain}`,
//   201 `{data:{id,email|domain,created_at}}`, a value already there 422 "has already been
//   taken" (Laravel's unique rule), a malformed one 422 naming the field; GET paged by 15
//   (per_page ignored). `setBlacklistApi(false)` is an instance without them (404).
//   Every value received is counted per workspace (`blacklistReceived`), refused ones too;
// - unsubscribed leads: no documented listing (UNCONFIRMED); `setUnsubscribedListing` makes
//   GET /api/leads?filters[status]=unsubscribed answer 404 ('absent', the default), filter
//   ('filtered'), or ignore the filter and list every lead ('unfiltered').
// Every call is counted, and every key it was sent recorded (a key must never reach an
// instance it was not saved for). `afterNextAttach` lets a test act (kill a worker) after an
// attach took effect but before its answer leaves.
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export type FakeLead = {
	id: number
	email: string
	first_name: string
	last_name: string
	title: string | null
	company: string | null
	custom_variables: { name: string; value: string }[]
	created_at: string
	updated_at: string
	/** 'unsubscribed' when the lead unsubscribed (`unsubscribe`) */
	status?: string
}
export type FakeBlacklisted = { id: number; value: string; created_at: string }
export type FakeCampaign = {
	id: number
	uuid: string
	name: string
	status: string
	workspaceId: number
	/** lead ids in the campaign, in attach order (a lead is in a campaign once) */
	leads: number[]
	/** how many times each lead id was sent to attach-leads */
	attachCalls: Map<number, number>
	/** lead id -> when it shows in the campaign's lead listing (the sync delay of active ones) */
	visibleAt: Map<number, number>
}
export type FakeWorkspace = {
	id: number
	name: string
	leads: Map<string, FakeLead>
	leadIds: Set<number>
	customVariables: Set<string>
	/**
	 * GET /api/sender-emails items (issue 38): `id` and `email` are documented; the rest of an
	 * item's fields are UNCONFIRMED, so tests put whatever shape they probe here
	 */
	senderEmails: Record<string, unknown>[]
	/** blacklisted emails and domains, by value in lower case */
	blacklistedEmails: Map<string, FakeBlacklisted>
	blacklistedDomains: Map<string, FakeBlacklisted>
}

export type FakeEmailBison = {
	url: string
	superAdminKey: string
	calls: string[]
	/** per call, in arrival order: when it arrived and when its answer was written (ms, performance.now) */
	timings: { arrived: number; answered: number }[]
	/** every Bearer key received, in arrival order (wrong ones too) */
	keysReceived: string[]
	count(prefix: string): number
	workspaces: Map<number, FakeWorkspace>
	campaigns: Map<number, FakeCampaign>
	/** the super-admin key's current workspace */
	currentWorkspace(): number
	addWorkspace(name: string): FakeWorkspace
	addCampaign(workspaceId: number, name: string): FakeCampaign
	/** answer 429 (Retry-After: seconds) to the next n calls of lead or attach endpoints */
	rateLimitNext(n: number, retryAfterSeconds?: number): void
	/** answer 503 to the next n lead or attach calls */
	failNext(n: number): void
	/** refuse minting api-user keys (the job then serialises switch + work) */
	setMintSupported(ok: boolean): void
	/** wait this long before answering every call */
	setLatency(ms: number): void
	/** leads attached to an active campaign show in its listing this much later */
	setSyncDelay(ms: number): void
	/** 422s on create-or-update name no row ("The given data was invalid.") */
	setUnnamedRowErrors(on: boolean): void
	/** the next n upsert (or attach) calls answer 200 with an HTML page, doing nothing */
	malformedNext(n: number, which?: 'upsert' | 'attach'): void
	/** the largest per_page the campaign lead listing honours (15: it ignores per_page) */
	setMaxPerPage(n: number): void
	/**
	 * the next attach-leads call that takes effect awaits `hook` before its answer is sent
	 * (the leads are in the campaign by then)
	 */
	afterNextAttach(hook: () => Promise<void | 'drop'> | void | 'drop'): void
	/** how many times each value reached POST blacklisted-emails/-domains, by `${workspaceId} ${value}` */
	blacklistReceived: Map<string, number>
	/** whether the instance offers the blacklist endpoints (404 when not) */
	setBlacklistApi(on: boolean): void
	/** how GET /api/leads?filters[status]=unsubscribed answers (UNCONFIRMED endpoint) */
	setUnsubscribedListing(mode: 'absent' | 'filtered' | 'unfiltered'): void
	/** marks a lead of the workspace unsubscribed (creating it when new) */
	unsubscribe(workspaceId: number, email: string): void
	/**
	 * the `n`th blacklist POST from now that takes effect awaits `hook` before its answer is
	 * sent (the value is on the blacklist by then); 'drop' loses the answer
	 */
	afterBlacklistPost(n: number, hook: () => Promise<void | 'drop'> | void | 'drop'): void
	reset(): void
	close(): Promise<void>
}

const PER_PAGE = 15

export async function startFakeEmailBison(
	options: {
		port?: number
		superAdminKey?: string
		workspaces?: number
		latencyMs?: number
		/** the name /api/users answers for the super-admin (two instances told apart on a page) */
		adminName?: string
	} = {},
): Promise<FakeEmailBison> {
	const superAdminKey = options.superAdminKey ?? 'eb-super-admin-key-1234'
	const calls: string[] = []
	const timings: { arrived: number; answered: number }[] = []
	const keysReceived: string[] = []
	let latency = options.latencyMs ?? 0
	let limited = 0
	let limitedFor = 1
	let failing = 0
	let mintSupported = true
	let syncDelay = 0
	let unnamedRowErrors = false
	let malformed = 0
	let malformedWhich: 'upsert' | 'attach' = 'upsert'
	let maxPerPage = 100
	let attachHook: (() => Promise<void | 'drop'> | void | 'drop') | null = null
	let blacklistApi = true
	let unsubscribedListing: 'absent' | 'filtered' | 'unfiltered' = 'absent'
	let blacklistHook: { n: number; hook: () => Promise<void | 'drop'> | void | 'drop' } | null = null
	const blacklistReceived = new Map<string, number>()
	let nextId = 1
	const workspaces = new Map<number, FakeWorkspace>()
	const campaigns = new Map<number, FakeCampaign>()
	/** campaign id -> its lead ids, for constant-time membership */
	const members = new Map<number, Set<number>>()
	/** api-user token -> workspace id */
	const workspaceKeys = new Map<string, number>()
	let current = 0

	function addWorkspace(name: string) {
		const ws: FakeWorkspace = {
			id: nextId++,
			name,
			leads: new Map(),
			leadIds: new Set(),
			customVariables: new Set(),
			senderEmails: [],
			blacklistedEmails: new Map(),
			blacklistedDomains: new Map(),
		}
		workspaces.set(ws.id, ws)
		if (!current) current = ws.id
		return ws
	}
	function addCampaign(workspaceId: number, name: string) {
		const id = nextId++
		const campaign: FakeCampaign = {
			id,
			uuid: `c-${id}`,
			name,
			status: 'draft',
			workspaceId,
			leads: [],
			attachCalls: new Map(),
			visibleAt: new Map(),
		}
		campaigns.set(id, campaign)
		return campaign
	}
	function seed() {
		workspaces.clear()
		campaigns.clear()
		members.clear()
		workspaceKeys.clear()
		current = 0
		for (let i = 1; i <= (options.workspaces ?? 3); i++) addWorkspace(`Workspace ${i}`)
	}
	seed()

	const validEmail = (email: unknown) =>
		typeof email === 'string' && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)

	// The latency counts from the request's arrival and the fake's own work happens within it:
	// an instance answering every call after `latency` ms, whatever this process costs (a
	// benchmark's floor is calls x latency; the fake's CPU is not the uploader's time).
	const server = http.createServer((req, res) => {
		const arrived = performance.now()
		let raw = ''
		req.on('data', (chunk) => (raw += chunk))
		req.on('end', () => void handle(req, res, raw, arrived))
	})

	async function handle(
		req: http.IncomingMessage,
		res: http.ServerResponse,
		raw: string,
		arrived: number,
	) {
		const url = new URL(req.url ?? '/', 'http://fake')
		const path = url.pathname.replace(/\/+$/, '')
		const method = req.method ?? 'GET'
		calls.push(`${method} ${path}`)
		const timing = { arrived, answered: 0 }
		timings.push(timing)
		const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
			const text = JSON.stringify(body)
			const write = () => {
				if (res.destroyed) return
				res.writeHead(status, { 'Content-Type': 'application/json', ...headers })
				res.end(text)
				timing.answered = performance.now()
			}
			const wait = arrived + latency - performance.now()
			if (wait > 0) setTimeout(write, wait)
			else write()
		}
		const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1]
		if (auth) keysReceived.push(auth)
		const isSuper = auth === superAdminKey
		const boundWorkspace = auth ? workspaceKeys.get(auth) : undefined
		if (!isSuper && boundWorkspace === undefined) return send(401, { message: 'Unauthenticated.' })
		if (req.headers.accept !== 'application/json')
			return send(406, { message: 'Accept: application/json expected' })
		let body: Record<string, any> = {}
		if (raw) {
			if (!String(req.headers['content-type']).includes('application/json'))
				return send(415, { message: 'JSON expected' })
			try {
				body = JSON.parse(raw)
			} catch {
				return send(400, { message: 'Malformed JSON' })
			}
		}
		const workspaceId = isSuper ? current : boundWorkspace!
		const workspace = workspaces.get(workspaceId)
		const page = Math.max(1, Number(url.searchParams.get('page') ?? 1))
		const paged = <T>(items: T[], perPage = PER_PAGE) => {
			const lastPage = Math.max(1, Math.ceil(items.length / perPage))
			return {
				data: items.slice((page - 1) * perPage, page * perPage),
				links: { next: page < lastPage ? `${path}?page=${page + 1}` : null },
				meta: { current_page: page, last_page: lastPage, per_page: perPage, total: items.length },
			}
		}
		const mismatch = () =>
			send(403, { message: 'This campaign does not match the workspace of your API token.' })
		const heavy =
			path.startsWith('/api/leads') ||
			path.includes('/attach-leads') ||
			path.startsWith('/api/blacklisted-')
		if (heavy && limited > 0) {
			limited--
			return send(429, { message: 'Too Many Attempts.' }, { 'Retry-After': String(limitedFor) })
		}
		if (heavy && failing > 0) {
			failing--
			return send(503, { message: 'Service Unavailable' })
		}
		const which = path.includes('/attach-leads') ? 'attach' : 'upsert'
		if (heavy && malformed > 0 && which === malformedWhich) {
			malformed--
			const write = () => {
				if (res.destroyed) return
				res.writeHead(200, { 'Content-Type': 'text/html' })
				res.end('<html><body>Please wait while we check your browser</body></html>')
				timing.answered = performance.now()
			}
			return write()
		}

		if (method === 'GET' && path === '/api/users')
			return send(200, {
				data: { id: 1, name: options.adminName ?? 'Fake Admin', email: 'admin@fake.test' },
			})

		// workspaces: the super-admin key only
		if (path.startsWith('/api/workspaces/v1.1')) {
			if (!isSuper) return send(403, { message: 'This action is unauthorized.' })
			if (method === 'GET' && path === '/api/workspaces/v1.1')
				return send(200, paged([...workspaces.values()].map((w) => ({ id: w.id, name: w.name }))))
			if (method === 'POST' && path === '/api/workspaces/v1.1') {
				if (!body.name) return send(422, { message: 'The name field is required.', errors: {} })
				const ws = addWorkspace(String(body.name))
				return send(201, { data: { id: ws.id, name: ws.name } })
			}
			if (method === 'POST' && path === '/api/workspaces/v1.1/switch-workspace') {
				const target = workspaces.get(Number(body.team_id))
				if (!target) return send(404, { message: 'Workspace not found.' })
				current = target.id
				return send(200, { data: { success: true, message: `Switched to ${target.name}` } })
			}
			const mint = /^\/api\/workspaces\/v1\.1\/(\d+)\/api-tokens$/.exec(path)
			if (method === 'POST' && mint) {
				if (!mintSupported) return send(404, { message: 'Not found.' })
				const target = workspaces.get(Number(mint[1]))
				if (!target) return send(404, { message: 'Workspace not found.' })
				const token = `${target.id}|ws-key-${Math.random().toString(36).slice(2, 14)}`
				workspaceKeys.set(token, target.id)
				return send(200, {
					data: { id: nextId++, name: body.name ?? 'api', plain_text_token: token },
				})
			}
			return send(404, { message: 'Not found.' })
		}
		if (!workspace) return send(404, { message: 'No current workspace.' })

		if (method === 'GET' && path === '/api/sender-emails')
			return send(200, paged(workspace.senderEmails))

		if (path === '/api/custom-variables') {
			if (method === 'GET')
				return send(
					200,
					paged([...workspace.customVariables].map((name, i) => ({ id: i + 1, name }))),
				)
			if (method === 'POST') {
				const name = String(body.name ?? '')
				if (!/^[a-z0-9_]+$/i.test(name))
					return send(422, { message: 'Invalid name', errors: { name: ['Invalid name.'] } })
				if (workspace.customVariables.has(name))
					return send(422, {
						message: 'The name has already been taken.',
						errors: { name: ['The name has already been taken.'] },
					})
				workspace.customVariables.add(name)
				return send(201, { data: { id: workspace.customVariables.size, name } })
			}
		}
		if (path === '/api/campaigns') {
			const own = [...campaigns.values()].filter((c) => c.workspaceId === workspace.id)
			if (method === 'GET')
				return send(
					200,
					paged(own.map((c) => ({ id: c.id, uuid: c.uuid, name: c.name, status: c.status }))),
				)
			if (method === 'POST') {
				if (!body.name)
					return send(422, {
						message: 'The name field is required.',
						errors: { name: ['The name field is required.'] },
					})
				const c = addCampaign(workspace.id, String(body.name))
				return send(201, { data: { id: c.id, uuid: c.uuid, name: c.name, status: c.status } })
			}
		}
		const blacklist = /^\/api\/blacklisted-(emails|domains)$/.exec(path)
		if (blacklist) {
			if (!blacklistApi) return send(404, { message: 'Not found.' })
			const field = blacklist[1] === 'emails' ? 'email' : 'domain'
			const store = field === 'email' ? workspace.blacklistedEmails : workspace.blacklistedDomains
			if (method === 'GET')
				return send(
					200,
					paged(
						[...store.values()].map((b) => ({
							id: b.id,
							[field]: b.value,
							created_at: b.created_at,
						})),
					),
				)
			if (method !== 'POST') return send(405, { message: 'Method not allowed.' })
			const value = typeof body[field] === 'string' ? body[field].trim().toLowerCase() : ''
			const received = `${workspace.id} ${value}`
			blacklistReceived.set(received, (blacklistReceived.get(received) ?? 0) + 1)
			const valid = field === 'email' ? validEmail(value) : /^([a-z0-9-]+\.)+[a-z]{2,}$/.test(value)
			if (!valid)
				return send(422, {
					message: `The ${field} field must be a valid ${field === 'email' ? 'email address' : 'domain'}.`,
					errors: { [field]: [`The ${field} field must be a valid ${field}.`] },
				})
			if (store.has(value))
				return send(422, {
					message: `The ${field} has already been taken.`,
					errors: { [field]: [`The ${field} has already been taken.`] },
				})
			const row = { id: nextId++, value, created_at: new Date().toISOString() }
			store.set(value, row)
			if (blacklistHook && --blacklistHook.n <= 0) {
				const { hook } = blacklistHook
				blacklistHook = null
				if ((await hook()) === 'drop') return void res.destroy()
			}
			if (res.destroyed) return
			return send(201, { data: { id: row.id, [field]: value, created_at: row.created_at } })
		}
		if (method === 'GET' && path === '/api/leads') {
			if (unsubscribedListing === 'absent') return send(404, { message: 'Not found.' })
			const all = [...workspace.leads.values()]
			const wanted =
				unsubscribedListing === 'filtered' &&
				url.searchParams.get('filters[status]') === 'unsubscribed'
					? all.filter((l) => l.status === 'unsubscribed')
					: all
			return send(
				200,
				paged(
					wanted.map((l) => ({
						id: l.id,
						email: l.email,
						first_name: l.first_name,
						status: l.status ?? 'active',
					})),
				),
			)
		}
		if (method === 'POST' && path === '/api/leads/create-or-update/multiple') {
			const leads = body.leads
			if (!Array.isArray(leads) || leads.length === 0)
				return send(422, {
					message: 'The leads field is required.',
					errors: { leads: ['The leads field is required.'] },
				})
			if (leads.length > 500)
				return send(422, {
					message: 'The leads field must not have more than 500 items.',
					errors: { leads: ['The leads field must not have more than 500 items.'] },
				})
			const errors: Record<string, string[]> = {}
			leads.forEach((lead: Record<string, any>, i: number) => {
				if (!validEmail(lead.email))
					errors[`leads.${i}.email`] = [`The leads.${i}.email field must be a valid email address.`]
				if (typeof lead.first_name !== 'string' || !lead.first_name)
					errors[`leads.${i}.first_name`] = [`The leads.${i}.first_name field is required.`]
				for (const v of lead.custom_variables ?? [])
					if (!workspace.customVariables.has(v.name))
						errors[`leads.${i}.custom_variables`] = [`Unknown custom variable ${v.name}.`]
			})
			if (Object.keys(errors).length)
				return send(
					422,
					unnamedRowErrors
						? { message: 'The given data was invalid.' }
						: { message: Object.values(errors)[0]![0], errors },
				)
			const now = new Date().toISOString()
			const out = leads.map((lead: Record<string, any>) => {
				const key = String(lead.email).toLowerCase()
				const existing = workspace.leads.get(key)
				const next: FakeLead = {
					id: existing?.id ?? nextId++,
					email: lead.email,
					first_name: lead.first_name,
					last_name: lead.last_name ?? existing?.last_name ?? '',
					title: lead.title ?? existing?.title ?? null,
					company: lead.company ?? existing?.company ?? null,
					custom_variables: lead.custom_variables ?? existing?.custom_variables ?? [],
					created_at: existing?.created_at ?? now,
					updated_at: existing ? new Date(Date.parse(now) + 1).toISOString() : now,
				}
				workspace.leads.set(key, next)
				workspace.leadIds.add(next.id)
				return next
			})
			return send(200, { data: out })
		}
		const oneCampaign = /^\/api\/campaigns\/(\d+)$/.exec(path)
		if (method === 'GET' && oneCampaign) {
			const campaign = campaigns.get(Number(oneCampaign[1]))
			if (!campaign) return send(404, { message: 'Campaign not found.' })
			if (campaign.workspaceId !== workspace.id) return mismatch()
			return send(200, {
				data: {
					id: campaign.id,
					uuid: campaign.uuid,
					name: campaign.name,
					status: campaign.status,
				},
			})
		}
		const campaignLeads = /^\/api\/campaigns\/(\d+)\/leads$/.exec(path)
		if (method === 'GET' && campaignLeads) {
			const campaign = campaigns.get(Number(campaignLeads[1]))
			if (!campaign) return send(404, { message: 'Campaign not found.' })
			if (campaign.workspaceId !== workspace.id) return mismatch()
			const byId = new Map([...workspace.leads.values()].map((l) => [l.id, l]))
			const now = Date.now()
			const perPage = Math.min(
				Number(url.searchParams.get('per_page') ?? PER_PAGE) || PER_PAGE,
				maxPerPage,
			)
			return send(
				200,
				paged(
					campaign.leads
						.filter((id) => (campaign.visibleAt.get(id) ?? 0) <= now)
						.map((id) => {
							const lead = byId.get(id)
							return {
								id,
								email: lead?.email,
								first_name: lead?.first_name,
								last_name: lead?.last_name,
							}
						}),
					Math.max(PER_PAGE, perPage),
				),
			)
		}
		const attach = /^\/api\/campaigns\/(\d+)\/leads\/attach-leads$/.exec(path)
		if (method === 'POST' && attach) {
			const campaign = campaigns.get(Number(attach[1]))
			if (!campaign) return send(404, { message: 'Campaign not found.' })
			if (campaign.workspaceId !== workspace.id) return mismatch()
			const ids: unknown[] = Array.isArray(body.lead_ids) ? body.lead_ids : []
			const unknown = ids.filter((id) => !workspace.leadIds.has(Number(id)))
			if (unknown.length)
				return send(422, {
					message: 'The selected lead ids are invalid.',
					errors: { lead_ids: [`Unknown leads: ${unknown.join(', ')}`] },
				})
			const inCampaign = (members.get(campaign.id) ?? new Set<number>()) as Set<number>
			members.set(campaign.id, inCampaign)
			// in sequence elsewhere: in another active campaign of this workspace
			const inSequence = (id: number) =>
				body.allow_parallel_sending !== true &&
				[...campaigns.values()].some(
					(c) =>
						c.id !== campaign.id &&
						c.workspaceId === workspace.id &&
						/^active$/i.test(c.status) &&
						members.get(c.id)?.has(id),
				)
			let added = 0
			for (const raw of ids) {
				const id = Number(raw)
				campaign.attachCalls.set(id, (campaign.attachCalls.get(id) ?? 0) + 1)
				if (!inCampaign.has(id) && !inSequence(id)) {
					campaign.leads.push(id)
					inCampaign.add(id)
					if (/^active$/i.test(campaign.status) && syncDelay > 0)
						campaign.visibleAt.set(id, Date.now() + syncDelay)
					added++
				}
			}
			if (added === 0 && ids.some((raw) => !inCampaign.has(Number(raw))))
				return send(422, {
					message:
						'No leads were added because they are either in other sequences, have previously bounced, or unsubscribed.',
				})
			if (attachHook) {
				const hook = attachHook
				attachHook = null
				// 'drop': the attach took effect but its answer is lost (the connection breaks)
				if ((await hook()) === 'drop') return void res.destroy()
			}
			if (res.destroyed) return
			return send(200, { data: { success: true, message: 'Leads attached.' } })
		}
		return send(404, { message: 'Not found.' })
	}

	await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve))
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		superAdminKey,
		calls,
		timings,
		keysReceived,
		count: (prefix) => calls.filter((c) => c.startsWith(prefix)).length,
		workspaces,
		campaigns,
		currentWorkspace: () => current,
		addWorkspace,
		addCampaign,
		rateLimitNext(n, retryAfterSeconds = 1) {
			limited = n
			limitedFor = retryAfterSeconds
		},
		failNext(n) {
			failing = n
		},
		setMintSupported(ok) {
			mintSupported = ok
		},
		setLatency(ms) {
			latency = ms
		},
		setSyncDelay(ms) {
			syncDelay = ms
		},
		setUnnamedRowErrors(on) {
			unnamedRowErrors = on
		},
		malformedNext(n, which = 'upsert') {
			malformed = n
			malformedWhich = which
		},
		setMaxPerPage(n) {
			maxPerPage = n
		},
		afterNextAttach(hook) {
			attachHook = hook
		},
		blacklistReceived,
		setBlacklistApi(on) {
			blacklistApi = on
		},
		setUnsubscribedListing(mode) {
			unsubscribedListing = mode
		},
		unsubscribe(workspaceId, email) {
			const ws = workspaces.get(workspaceId)!
			const key = email.toLowerCase()
			const now = new Date().toISOString()
			const lead = ws.leads.get(key) ?? {
				id: nextId++,
				email,
				first_name: 'Unsubscribed',
				last_name: '',
				title: null,
				company: null,
				custom_variables: [],
				created_at: now,
				updated_at: now,
			}
			lead.status = 'unsubscribed'
			ws.leads.set(key, lead)
			ws.leadIds.add(lead.id)
		},
		afterBlacklistPost(n, hook) {
			blacklistHook = { n, hook }
		},
		reset() {
			calls.length = 0
			timings.length = 0
			keysReceived.length = 0
			limited = 0
			failing = 0
			mintSupported = true
			attachHook = null
			blacklistHook = null
			blacklistApi = true
			unsubscribedListing = 'absent'
			blacklistReceived.clear()
			syncDelay = 0
			unnamedRowErrors = false
			malformed = 0
			maxPerPage = 100
			seed()
		},
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections()
				server.close(() => resolve())
			}),
	}
}

if (import.meta.main) {
	const fake = await startFakeEmailBison({ port: Number(process.argv[2] ?? 0), workspaces: 20 })
	console.log(`fake EmailBison at ${fake.url} (super-admin key ${fake.superAdminKey})`)
}
