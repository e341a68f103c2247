/** A table's sort as the URL carries it (`?sort=name&dir=asc`): see components/ui/data-table.tsx. */
export type SortDirection = 'asc' | 'desc'
export type TableSort<K extends string = string> = { sort: K; dir: SortDirection }

/** The sort the URL asks for, when it names a sortable column; else the table's default. */
export function readSort<K extends string>(
	params: URLSearchParams,
	keys: readonly K[],
	fallback: TableSort<K>,
): TableSort<K> {
	const sort = params.get('sort')
	if (!sort || !(keys as readonly string[]).includes(sort)) return fallback
	return { sort: sort as K, dir: params.get('dir') === 'desc' ? 'desc' : 'asc' }
}
