// The enrich page's results URL state (?run=&status=&page=&after=|before=), shared by the
// server and the browser.

export const RESULTS_PAGE_SIZE = 50

export const RESULT_STATUSES = [
	{ key: 'all', label: 'All' },
	{ key: 'done', label: 'Done' },
	{ key: 'failed', label: 'Failed' },
	{ key: 'pending', label: 'Pending' },
] as const

export type ResultStatus = (typeof RESULT_STATUSES)[number]['key']

export type ResultsQuery = {
	status: ResultStatus
	page: number
	/** lead ids: the last of the previous page, or the first of the next one */
	after?: string
	before?: string
	/** rows a page (RESULTS_PAGE_SIZE unless said: the API's `limit`) */
	pageSize?: number
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const STATUS_KEYS = new Set<string>(RESULT_STATUSES.map((s) => s.key))

export function parseResultsQuery(params: URLSearchParams): ResultsQuery {
	const status = params.get('status') ?? 'all'
	const page = Number(params.get('page') ?? 1)
	const id = (name: string) => {
		const value = params.get(name)
		return value && UUID.test(value) ? value : undefined
	}
	return {
		status: STATUS_KEYS.has(status) ? (status as ResultStatus) : 'all',
		page: Number.isInteger(page) && page >= 1 && page <= 1_000_000 ? page : 1,
		after: id('after'),
		before: id('before'),
	}
}

/** The search string for a page of a run's results: only what differs from the defaults. */
export function resultsSearch(query: Partial<ResultsQuery> & { run?: string }) {
	const params = new URLSearchParams()
	if (query.run) params.set('run', query.run)
	if (query.status && query.status !== 'all') params.set('status', query.status)
	if (query.page && query.page > 1) params.set('page', String(query.page))
	if (query.after) params.set('after', query.after)
	if (query.before) params.set('before', query.before)
	const search = params.toString()
	return search ? `?${search}` : '?'
}
