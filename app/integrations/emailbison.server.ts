import { z } from 'zod'
import {
	createHttpClient,
	HttpError,
	MalformedAnswerError,
	NetworkError,
	parseJsonAnswer,
} from './http.server.ts'
import { COULD_NOT_CONNECT } from './outbound.server.ts'

// EmailBison's REST API (reference/emailbison-apify-apollo.md): the account's own instance
// URL + /api; Bearer auth; JSON; 15 a page with meta.last_page; 422 Laravel-style errors
// naming rows ("leads.3.email"); 429 with Retry-After. As the service behaves:
// - a 403 whose message says the resource "does not match the workspace" (a campaign of
//   another workspace) is "not in this workspace", not a bad key;
// - a 422 may name no row ("The given data was invalid."): the caller splits the batch;
// - attach-leads with allow_parallel_sending:false skips leads in sequence in another
//   campaign and still answers 2xx (a call where every lead is skipped answers 422 "No leads
//   were added because they are either in other sequences, have previously bounced, or
//   unsubscribed."): the caller verifies against the campaign;
// - leads attached to an active campaign show in it up to 5 minutes later
//   (docs.emailbison.com/campaigns/adding-leads-to-a-campaign);
// - every answer a job relies on is checked (zod): a 200 that is not the documented shape
//   is a transient failure, never "no leads" or "attached".

export const EMAILBISON_BATCH_LIMIT = 500
/** EmailBison's documented page size */
const PER_PAGE = 15

export type EbWorkspace = { id: number; name: string }
export type EbCampaign = { id: number; name: string; status?: string }
export type EbLeadInput = {
	email: string
	first_name: string
	last_name: string
	title?: string
	company?: string
	notes?: string
	custom_variables?: { name: string; value: string }[]
}
/** One lead of a create-or-update body, already written as JSON (an object of EbLeadInput's shape). */
export type EbLeadJson = string & { readonly __ebLeadJson: true }
export type EbLeadResult = {
	id: number
	email: string
	created_at?: string
	updated_at?: string
}

export class EmailBisonError extends Error {
	readonly kind:
		| 'key'
		| 'url'
		| 'rate-limited'
		| 'unavailable'
		| 'invalid'
		| 'not-found'
		| 'skipped'
		/** an endpoint this instance does not offer, or answers in an unexpected shape (a probe) */
		| 'unsupported'
		| 'other'
	readonly status: number | undefined
	readonly retryAfterSeconds: number | undefined
	/** 422: the messages per row index of the request's leads ("leads.3.email" -> 3) */
	readonly rowErrors: Map<number, string[]>
	constructor(
		kind: EmailBisonError['kind'],
		message: string,
		options: {
			status?: number
			retryAfterSeconds?: number
			rowErrors?: Map<number, string[]>
		} = {},
	) {
		super(message)
		this.name = 'EmailBisonError'
		this.kind = kind
		this.status = options.status
		this.retryAfterSeconds = options.retryAfterSeconds
		this.rowErrors = options.rowErrors ?? new Map()
	}
	/** worth trying again later */
	get retryable() {
		return this.kind === 'rate-limited' || this.kind === 'unavailable'
	}
}

/** The stored URL as an API base: a trailing / or /api is stripped, then /api appended. */
export function emailBisonBase(url: string) {
	const trimmed = url
		.trim()
		.replace(/\/+$/, '')
		.replace(/\/api$/i, '')
	return `${trimmed}/api`
}

/** http(s) URLs only; anything else is refused before a request is made. */
export function isHttpUrl(value: string) {
	try {
		const url = new URL(value.trim())
		return (url.protocol === 'http:' || url.protocol === 'https:') && Boolean(url.hostname)
	} catch {
		return false
	}
}

type LaravelError = { message?: string; errors?: Record<string, string[] | string> }

function rowErrorsOf(body: LaravelError | undefined) {
	const rows = new Map<number, string[]>()
	for (const [key, value] of Object.entries(body?.errors ?? {})) {
		const match = /^leads\.(\d+)(?:\.|$)/.exec(key)
		if (!match) continue
		const index = Number(match[1])
		const messages = Array.isArray(value) ? value : [String(value)]
		rows.set(index, [...(rows.get(index) ?? []), ...messages])
	}
	return rows
}

/** 403 "... does not match the workspace ..." (or "does not belong to"): not a key problem */
const WORKSPACE_MISMATCH =
	/(does not|doesn't) (match|belong)[^.]*workspace|workspace[^.]*(does not|doesn't) match/i
/** attach-leads where EmailBison added none of the leads (in other sequences, bounced, unsubscribed) */
const NOTHING_ATTACHED = /no leads were (added|attached)/i

function messageOf(body: unknown): string {
	if (!body || typeof body !== 'object') return typeof body === 'string' ? body.slice(0, 300) : ''
	const record = body as { message?: unknown; data?: { message?: unknown } }
	const message = record.message ?? record.data?.message
	return typeof message === 'string' ? message : ''
}

function describe(error: unknown): EmailBisonError {
	if (error instanceof EmailBisonError) return error
	// one wording whatever the cause (refused, timeout, TLS, internal address): no port mapping
	if (error instanceof NetworkError)
		return error.blocked
			? new EmailBisonError('url', `${COULD_NOT_CONNECT} Check the EmailBison URL in Settings.`)
			: new EmailBisonError(
					'unavailable',
					`${COULD_NOT_CONNECT} Check the EmailBison URL in Settings; we will try again.`,
				)
	if (error instanceof MalformedAnswerError)
		return new EmailBisonError(
			'unavailable',
			`EmailBison sent an answer that is not what its API documents (${error.problems.join('; ')}). Check the EmailBison URL if this goes on.`,
			// a status: it answered (a settings test says so, not "could not connect")
			{ status: error.status },
		)
	if (!(error instanceof HttpError)) return new EmailBisonError('other', String(error))
	const body = (error.body && typeof error.body === 'object' ? error.body : {}) as LaravelError
	const status = error.status
	const said = messageOf(error.body)
	// a campaign (or lead) of another workspace than the key's: the key itself is fine
	if (status === 403 && WORKSPACE_MISMATCH.test(said))
		return new EmailBisonError('not-found', said, { status })
	if (status === 401 || status === 403)
		return new EmailBisonError(
			'key',
			'EmailBison refused the API key: check the super-admin key in Settings.',
			{ status },
		)
	if (status === 429)
		return new EmailBisonError(
			'rate-limited',
			'EmailBison is rate limiting us. We will try again.',
			{
				status,
				retryAfterSeconds: error.retryAfterSeconds,
			},
		)
	if (status >= 500)
		return new EmailBisonError(
			'unavailable',
			`EmailBison is having trouble (${status}). We will try again.`,
			{ status, retryAfterSeconds: error.retryAfterSeconds },
		)
	if (status === 404)
		return new EmailBisonError('not-found', body.message || 'EmailBison does not know that.', {
			status,
		})
	if (status === 422 && NOTHING_ATTACHED.test(said))
		return new EmailBisonError('skipped', said, { status })
	if (status === 422) {
		const rowErrors = rowErrorsOf(body)
		const first = Object.values(body.errors ?? {})[0]
		const detail = Array.isArray(first) ? first[0] : first
		return new EmailBisonError(
			'invalid',
			detail || body.message || 'EmailBison refused the data.',
			{
				status,
				rowErrors,
			},
		)
	}
	return new EmailBisonError('other', body.message || `EmailBison answered ${status}.`, { status })
}

const id = z.union([z.number(), z.string().regex(/^\d+$/)]).transform(Number)
/** a JSON object (an HTML page or plain text from a proxy is not an answer) */
const anObject = z.record(z.string(), z.unknown())
const leadResults = z.object({
	data: z.array(
		z.object({
			id,
			email: z.string(),
			created_at: z.string().nullish(),
			updated_at: z.string().nullish(),
		}),
	),
})
const withData = z.object({ data: z.record(z.string(), z.unknown()) })
const created = z.object({ data: z.object({ id, name: z.string().nullish() }) })
const campaignAnswer = z.object({ data: z.object({ id, status: z.string().nullish() }) })
const pageOf = <T extends z.ZodType>(item: T) =>
	z.object({
		data: z.array(item),
		meta: z.object({ last_page: z.coerce.number().int().min(1) }).nullish(),
	})

/** The api-token response shape is UNCONFIRMED: take the first plausible token string. */
export function tokenFrom(body: unknown): string | null {
	const candidates: unknown[] = []
	const visit = (value: unknown, depth: number) => {
		if (!value || typeof value !== 'object' || depth > 2) return
		const record = value as Record<string, unknown>
		for (const key of [
			'plain_text_token',
			'plainTextToken',
			'token',
			'api_token',
			'key',
			'api_key',
		])
			candidates.push(record[key])
		visit(record.data, depth + 1)
		visit(record.token, depth + 1)
	}
	if (typeof body === 'string') candidates.push(body)
	visit(body, 0)
	// a token is one word (an HTML page or a sentence is not one)
	const token = candidates.find(
		(c): c is string => typeof c === 'string' && /^[\w|.~+/=-]{8,}$/.test(c.trim()),
	)
	return token?.trim() ?? null
}

export function createEmailBisonClient(options: {
	baseUrl: string
	apiKey: string
	retryDelayMs?: number
	timeoutMs?: number
	/** per_page asked of campaign lead listings (an instance that ignores it pages by 15) */
	campaignLeadsPerPage?: number
}) {
	const http = createHttpClient({
		baseURL: emailBisonBase(options.baseUrl),
		headers: {
			Authorization: `Bearer ${options.apiKey}`,
			Accept: 'application/json',
			'Content-Type': 'application/json',
		},
		timeoutMs: options.timeoutMs ?? 60_000,
		retryDelayMs: options.retryDelayMs,
		// answers of 500 leads: JSON.parse without destr's scans where no prototype key is in them
		parseResponse: parseJsonAnswer,
		// an account's own instance: a URL a user set
		userUrl: true,
	})
	const call = async <T>(fn: () => Promise<T>) => {
		try {
			return await fn()
		} catch (error) {
			throw describe(error)
		}
	}
	/** 200 with {data:{success:false,message}} is a failure too */
	const checked = <T>(body: T) => {
		const data = (body as { data?: { success?: boolean; message?: string } })?.data
		if (data && typeof data === 'object' && data.success === false)
			throw new EmailBisonError('other', data.message || 'EmailBison refused the request.')
		return body
	}
	/**
	 * Every page, by meta.last_page. `perPage` asks for larger pages where an endpoint honours
	 * it (one that ignores it still pages by its own size: meta.last_page follows it). A page
	 * as long as a full page without meta is malformed: the end cannot be known.
	 */
	async function allPages<T extends z.ZodType>(
		path: string,
		item: T,
		perPage?: number,
		extra: { query?: Record<string, string>; onPage?: (items: z.infer<T>[]) => void } = {},
	) {
		const schema = pageOf(item)
		const items: z.infer<T>[] = []
		for (let page = 1; ; page++) {
			const { data: body } = await call(() =>
				http.checked(schema, path, { query: { ...extra.query, page, per_page: perPage } }),
			)
			extra.onPage?.(body.data)
			items.push(...body.data)
			if (!body.meta && body.data.length >= Math.min(perPage ?? PER_PAGE, PER_PAGE))
				throw describe(
					new MalformedAnswerError({
						method: 'GET',
						url: path,
						status: 200,
						problems: ['meta.last_page: missing on a full page'],
					}),
				)
			const last = body.meta?.last_page ?? 1
			if (page >= last || body.data.length === 0) return items
		}
	}
	return {
		/** GET /api/users: checks the key */
		me: () =>
			call(() => http.checked(withData, '/users')).then(
				(r) => r.data.data as { id?: number; name?: string; email?: string },
			),
		listWorkspaces: () =>
			allPages('/workspaces/v1.1', z.object({ id, name: z.coerce.string() })).then((ws) =>
				ws.map((w) => ({ id: w.id, name: w.name })),
			),
		createWorkspace: (name: string) =>
			call(() =>
				http.checked(created, '/workspaces/v1.1', { method: 'POST', body: { name } }),
			).then((r) => ({ id: r.data.data.id, name: r.data.data.name ?? name })),
		switchWorkspace: (teamId: number) =>
			call(() =>
				http.checked(anObject, '/workspaces/v1.1/switch-workspace', {
					method: 'POST',
					body: { team_id: teamId },
				}),
			).then((r) => checked(r.data)),
		/** an api-user key bound to the workspace; null when the answer holds no token */
		mintWorkspaceKey: (teamId: number, name: string) =>
			call(() =>
				http.json<unknown>(`/workspaces/v1.1/${teamId}/api-tokens`, {
					method: 'POST',
					body: { name },
				}),
			).then((body) => tokenFrom(checked(body))),
		listCampaigns: () =>
			allPages(
				'/campaigns',
				z.object({ id, name: z.coerce.string(), status: z.string().nullish() }),
			).then((cs) => cs.map((c) => ({ id: c.id, name: c.name, status: c.status ?? undefined }))),
		/** GET /api/campaigns/{id}: its status (leads attached to an active one show up later) */
		getCampaign: (campaignId: number) =>
			call(() => http.checked(campaignAnswer, `/campaigns/${campaignId}`)).then((r) => ({
				id: r.data.data.id,
				status: r.data.data.status ?? null,
			})),
		createCampaign: (name: string) =>
			call(() =>
				http.checked(created, '/campaigns', {
					method: 'POST',
					body: { name, type: 'outbound' },
				}),
			).then((r) => ({ id: r.data.data.id, name: r.data.data.name ?? name })),
		/**
		 * GET /api/sender-emails (all pages): the key's workspace's sending inboxes. Only `id` and
		 * `email` are documented; each item comes back whole for the caller to read defensively.
		 */
		listSenderEmails: () =>
			allPages('/sender-emails', z.looseObject({ id, email: z.string() })).then(
				(items) => items as ({ id: number; email: string } & Record<string, unknown>)[],
			),
		listCustomVariables: () =>
			allPages('/custom-variables', z.object({ name: z.string() })).then((vs) =>
				vs.map((v) => v.name),
			),
		createCustomVariable: (name: string) =>
			call(() =>
				http.checked(anObject, '/custom-variables', { method: 'POST', body: { name } }),
			).then((r) => checked(r.data)),
		/** POST /api/leads/create-or-update/multiple: at most 500 leads */
		upsertLeads: (leads: readonly EbLeadInput[] | readonly EbLeadJson[]) => {
			if (leads.length > EMAILBISON_BATCH_LIMIT)
				throw new Error(`at most ${EMAILBISON_BATCH_LIMIT} leads a call`)
			// leads already written as JSON go into the body as they are
			const body = leads.every((lead) => typeof lead === 'string')
				? `{"existing_lead_behavior":"patch","leads":[${leads.join(',')}]}`
				: { existing_lead_behavior: 'patch', leads }
			// data[] with an id and email per lead: anything else is not "these leads were refused"
			return call(() =>
				http.checked(leadResults, '/leads/create-or-update/multiple', {
					method: 'POST',
					body,
				}),
			).then((r) => r.data.data as EbLeadResult[])
		},
		/**
		 * GET /api/campaigns/{id}/leads (all pages, `campaignLeadsPerPage` a page where the
		 * instance honours per_page): the ids of the leads a campaign has, to reconcile after an
		 * attach whose answer was lost and to verify what an attach really added.
		 */
		listCampaignLeadIds: (campaignId: number) =>
			allPages(
				`/campaigns/${campaignId}/leads`,
				z.object({ id }),
				options.campaignLeadsPerPage ?? 100,
			).then((leads) => leads.map((l) => l.id)),
		/**
		 * GET /api/blacklisted-emails (all pages): the workspace's blacklisted addresses. Only
		 * the path is documented; an item is read for its `email` and nothing else.
		 */
		listBlacklistedEmails: () =>
			allPages('/blacklisted-emails', z.looseObject({ email: z.string() }), 100).then((items) =>
				items.map((i) => i.email),
			),
		/** GET /api/blacklisted-domains (all pages), read for each item's `domain`. */
		listBlacklistedDomains: () =>
			allPages('/blacklisted-domains', z.looseObject({ domain: z.string() }), 100).then((items) =>
				items.map((i) => i.domain),
			),
		/** POST /api/blacklisted-emails: one address (the body's shape is the path's noun) */
		addBlacklistedEmail: (email: string) =>
			call(() =>
				http.checked(anObject, '/blacklisted-emails', { method: 'POST', body: { email } }),
			).then((r) => checked(r.data)),
		/** POST /api/blacklisted-domains: one domain */
		addBlacklistedDomain: (domain: string) =>
			call(() =>
				http.checked(anObject, '/blacklisted-domains', { method: 'POST', body: { domain } }),
			).then((r) => checked(r.data)),
		/**
		 * The workspace's unsubscribed leads: UNCONFIRMED (no documented listing), probed as
		 * GET /api/leads filtered by status. Every item must say it is unsubscribed: an instance
		 * that ignores the filter would otherwise hand back every lead, so a page with any other
		 * lead is refused as the wrong shape ('unsupported') before the next page is asked.
		 */
		listUnsubscribedLeads: () =>
			allPages('/leads', z.looseObject({ email: z.string(), status: z.string().nullish() }), 100, {
				query: { 'filters[status]': 'unsubscribed' },
				onPage(items) {
					if (items.some((i) => !/^unsubscribed$/i.test(i.status ?? '')))
						throw new EmailBisonError(
							'unsupported',
							'EmailBison answered with leads that are not unsubscribed (it does not filter them).',
							{ status: 200 },
						)
				},
			}).then((items) => items.map((i) => i.email)),
		/**
		 * POST attach-leads. 2xx does not mean every lead was added (leads in sequence elsewhere
		 * are skipped): the caller verifies. A JSON object is required (a proxy's HTML is not an
		 * attach); `{data:{success:false}}` and 422 "No leads were added" are 'skipped'.
		 */
		attachLeads: (campaignId: number, leadIds: number[]) =>
			call(() =>
				http.checked(anObject, `/campaigns/${campaignId}/leads/attach-leads`, {
					method: 'POST',
					body: { lead_ids: leadIds, allow_parallel_sending: false },
				}),
			).then((r) => {
				const data = r.data.data as { success?: unknown; message?: unknown } | undefined
				if (data && typeof data === 'object' && data.success === false) {
					const message = typeof data.message === 'string' ? data.message : ''
					throw new EmailBisonError(
						NOTHING_ATTACHED.test(message) ? 'skipped' : 'other',
						message || 'EmailBison refused the request.',
					)
				}
				return r.data
			}),
	}
}

export type EmailBisonClient = ReturnType<typeof createEmailBisonClient>
