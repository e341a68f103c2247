// A list page's URL state (?q=&sort=&dir=&page=&after=|before=), for either kind of list,
// shared by the server and the browser.
import { isStatusFilter, type StatusFilter } from '../verification/statuses.ts'
import { LIST_KINDS, type ListKind, type SortOf } from './list-kinds.ts'

export type ListQuery<Sort extends string = string> = {
	q: string
	sort: Sort
	dir: 'asc' | 'desc'
	page: number
	after?: string
	before?: string
	/** a lead list's email status filter (a group of the verify summary) */
	status?: StatusFilter
	/** a lead list's leads on the do-not-contact list only (?suppressed=1) */
	suppressed?: true
}

export function parseListQuery<K extends ListKind>(
	kind: K,
	params: URLSearchParams,
): ListQuery<SortOf<K>> {
	const { sorts, defaultSort } = LIST_KINDS[kind]
	const sort = params.get('sort') ?? defaultSort
	const page = Number(params.get('page') ?? 1)
	const cursor = (name: string) => {
		const value = params.get(name)
		return value && /^[A-Za-z0-9_-]{1,2000}$/.test(value) ? value : undefined
	}
	return {
		q: (params.get('q') ?? '').trim().slice(0, 200),
		sort: (sorts.some((s) => s.key === sort) ? sort : defaultSort) as SortOf<K>,
		dir: params.get('dir') === 'desc' ? 'desc' : 'asc',
		page: Number.isInteger(page) && page >= 1 && page <= 1_000_000 ? page : 1,
		after: cursor('after'),
		before: cursor('before'),
		...(kind === 'leads' && isStatusFilter(params.get('status'))
			? { status: params.get('status') as StatusFilter }
			: {}),
		...(kind === 'leads' && params.get('suppressed') === '1' ? { suppressed: true as const } : {}),
	}
}

/** The search string for a page of the list: only what differs from the defaults. */
export function listSearch(kind: ListKind, query: Partial<ListQuery>) {
	const params = new URLSearchParams()
	if (query.q) params.set('q', query.q)
	if (query.status) params.set('status', query.status)
	if (query.suppressed) params.set('suppressed', '1')
	if (query.sort && query.sort !== LIST_KINDS[kind].defaultSort) params.set('sort', query.sort)
	if (query.dir === 'desc') params.set('dir', 'desc')
	if (query.page && query.page > 1) params.set('page', String(query.page))
	if (query.after) params.set('after', query.after)
	if (query.before) params.set('before', query.before)
	const search = params.toString()
	return search ? `?${search}` : ''
}
