import { createHttpClient, HttpError, NetworkError, parseJsonAnswer } from './http.server.ts'
import { COULD_NOT_CONNECT } from './outbound.server.ts'

// EmailBison's REST API (reference/emailbison-apify-apollo.md): the account's own instance
// URL + /api; Bearer auth; JSON; 15 a page with meta.last_page; 422 Laravel-style errors
// naming rows ("leads.3.email"); 429 with Retry-After.

export const EMAILBISON_BATCH_LIMIT = 500

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
	readonly kind: 'key' | 'url' | 'rate-limited' | 'unavailable' | 'invalid' | 'not-found' | 'other'
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
	if (!(error instanceof HttpError)) return new EmailBisonError('other', String(error))
	const body = (error.body && typeof error.body === 'object' ? error.body : {}) as LaravelError
	const status = error.status
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

type Page<T> = { data: T[]; meta?: { current_page?: number; last_page?: number } }

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
	const token = candidates.find((c): c is string => typeof c === 'string' && c.trim().length >= 8)
	return token?.trim() ?? null
}

export function createEmailBisonClient(options: {
	baseUrl: string
	apiKey: string
	retryDelayMs?: number
	timeoutMs?: number
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
	async function allPages<T>(path: string) {
		const items: T[] = []
		for (let page = 1; ; page++) {
			const body = await call(() => http.json<Page<T>>(path, { query: { page } }))
			items.push(...(body.data ?? []))
			const last = body.meta?.last_page ?? 1
			if (page >= last || (body.data ?? []).length === 0) return items
		}
	}
	return {
		/** GET /api/users: checks the key */
		me: () =>
			call(() =>
				http.json<{ data: { id?: number; name?: string; email?: string } }>('/users'),
			).then((r) => r.data),
		listWorkspaces: () =>
			allPages<EbWorkspace>('/workspaces/v1.1').then((ws) =>
				ws.map((w) => ({ id: Number(w.id), name: String(w.name) })),
			),
		createWorkspace: (name: string) =>
			call(() =>
				http.json<{ data: EbWorkspace }>('/workspaces/v1.1', { method: 'POST', body: { name } }),
			).then((r) => r.data),
		switchWorkspace: (teamId: number) =>
			call(() =>
				http.json<unknown>('/workspaces/v1.1/switch-workspace', {
					method: 'POST',
					body: { team_id: teamId },
				}),
			).then(checked),
		/** an api-user key bound to the workspace; null when the answer holds no token */
		mintWorkspaceKey: (teamId: number, name: string) =>
			call(() =>
				http.json<unknown>(`/workspaces/v1.1/${teamId}/api-tokens`, {
					method: 'POST',
					body: { name },
				}),
			).then((body) => tokenFrom(checked(body))),
		listCampaigns: () =>
			allPages<EbCampaign>('/campaigns').then((cs) =>
				cs.map((c) => ({ id: Number(c.id), name: String(c.name), status: c.status })),
			),
		createCampaign: (name: string) =>
			call(() =>
				http.json<{ data: EbCampaign }>('/campaigns', {
					method: 'POST',
					body: { name, type: 'outbound' },
				}),
			).then((r) => ({ id: Number(r.data.id), name: r.data.name ?? name })),
		listCustomVariables: () =>
			allPages<{ id?: number; name: string }>('/custom-variables').then((vs) =>
				vs.map((v) => v.name),
			),
		createCustomVariable: (name: string) =>
			call(() => http.json<unknown>('/custom-variables', { method: 'POST', body: { name } })).then(
				checked,
			),
		/** POST /api/leads/create-or-update/multiple: at most 500 leads */
		upsertLeads: (leads: readonly EbLeadInput[] | readonly EbLeadJson[]) => {
			if (leads.length > EMAILBISON_BATCH_LIMIT)
				throw new Error(`at most ${EMAILBISON_BATCH_LIMIT} leads a call`)
			// leads already written as JSON go into the body as they are
			const body = leads.every((lead) => typeof lead === 'string')
				? `{"existing_lead_behavior":"patch","leads":[${leads.join(',')}]}`
				: { existing_lead_behavior: 'patch', leads }
			return call(() =>
				http.json<{ data: EbLeadResult[] }>('/leads/create-or-update/multiple', {
					method: 'POST',
					body,
				}),
			).then((r) => checked(r).data ?? [])
		},
		/**
		 * GET /api/campaigns/{id}/leads (all pages): the ids of the leads a campaign already
		 * has, to reconcile after an attach whose answer was lost.
		 */
		listCampaignLeadIds: (campaignId: number) =>
			allPages<{ id: number }>(`/campaigns/${campaignId}/leads`).then((leads) =>
				leads.map((l) => Number(l.id)),
			),
		attachLeads: (campaignId: number, leadIds: number[]) =>
			call(() =>
				http.json<unknown>(`/campaigns/${campaignId}/leads/attach-leads`, {
					method: 'POST',
					body: { lead_ids: leadIds, allow_parallel_sending: false },
				}),
			).then(checked),
	}
}

export type EmailBisonClient = ReturnType<typeof createEmailBisonClient>
