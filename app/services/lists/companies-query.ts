// The company list page's URL state (?q=&sort=&dir=&page=&after=|before=), shared by the
// server and the browser.

export const COMPANIES_PAGE_SIZE = 50

export const COMPANY_SORTS = [
	{ key: 'name', label: 'Name' },
	{ key: 'domain', label: 'Domain' },
] as const

export type CompanySort = (typeof COMPANY_SORTS)[number]['key']

export type CompaniesQuery = {
	q: string
	sort: CompanySort
	dir: 'asc' | 'desc'
	page: number
	after?: string
	before?: string
}

export function parseCompaniesQuery(params: URLSearchParams): CompaniesQuery {
	const page = Number(params.get('page') ?? 1)
	const cursor = (name: string) => {
		const value = params.get(name)
		return value && /^[A-Za-z0-9_-]{1,2000}$/.test(value) ? value : undefined
	}
	return {
		q: (params.get('q') ?? '').trim().slice(0, 200),
		sort: params.get('sort') === 'domain' ? 'domain' : 'name',
		dir: params.get('dir') === 'desc' ? 'desc' : 'asc',
		page: Number.isInteger(page) && page >= 1 && page <= 1_000_000 ? page : 1,
		after: cursor('after'),
		before: cursor('before'),
	}
}

/** The search string for a page of the list: only what differs from the defaults. */
export function companiesSearch(query: Partial<CompaniesQuery>) {
	const params = new URLSearchParams()
	if (query.q) params.set('q', query.q)
	if (query.sort && query.sort !== 'name') params.set('sort', query.sort)
	if (query.dir === 'desc') params.set('dir', 'desc')
	if (query.page && query.page > 1) params.set('page', String(query.page))
	if (query.after) params.set('after', query.after)
	if (query.before) params.set('before', query.before)
	const search = params.toString()
	return search ? `?${search}` : ''
}
