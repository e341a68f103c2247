// The list page's URL state (?q=&sort=&dir=&page=&after=|before=), shared by the server
// and the browser.

export const LEADS_PAGE_SIZE = 50

export const LEAD_SORTS = [
	{ key: 'added', label: 'Added' },
	{ key: 'email', label: 'Email' },
	{ key: 'first_name', label: 'First name' },
	{ key: 'last_name', label: 'Last name' },
	{ key: 'company', label: 'Company' },
] as const

export type LeadSort = (typeof LEAD_SORTS)[number]['key']

export type LeadsQuery = {
	q: string
	sort: LeadSort
	dir: 'asc' | 'desc'
	page: number
	after?: string
	before?: string
}

const SORT_KEYS = new Set<string>(LEAD_SORTS.map((s) => s.key))

export function parseLeadsQuery(params: URLSearchParams): LeadsQuery {
	const sort = params.get('sort') ?? 'added'
	const page = Number(params.get('page') ?? 1)
	const cursor = (name: string) => {
		const value = params.get(name)
		return value && /^[A-Za-z0-9_-]{1,2000}$/.test(value) ? value : undefined
	}
	return {
		q: (params.get('q') ?? '').trim().slice(0, 200),
		sort: SORT_KEYS.has(sort) ? (sort as LeadSort) : 'added',
		dir: params.get('dir') === 'desc' ? 'desc' : 'asc',
		page: Number.isInteger(page) && page >= 1 && page <= 1_000_000 ? page : 1,
		after: cursor('after'),
		before: cursor('before'),
	}
}

/** The search string for a page of the list: only what differs from the defaults. */
export function leadsSearch(query: Partial<LeadsQuery>) {
	const params = new URLSearchParams()
	if (query.q) params.set('q', query.q)
	if (query.sort && query.sort !== 'added') params.set('sort', query.sort)
	if (query.dir === 'desc') params.set('dir', 'desc')
	if (query.page && query.page > 1) params.set('page', String(query.page))
	if (query.after) params.set('after', query.after)
	if (query.before) params.set('before', query.before)
	const search = params.toString()
	return search ? `?${search}` : ''
}
