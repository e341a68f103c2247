import { isUuid } from '../../utils/http-errors.server.ts'
import type { ListQuery } from './list-query.ts'

// What a page of leads and a page of companies share: their cursors and how a fetched page
// (one row past the page size, perhaps read backwards) becomes the page with its Previous and
// Next links. Each kind's SQL is its own (leads-page.server.ts, companies-page.server.ts).

/** A row's place in the page's order: its sort key and id. */
export type KeysetCursor<Key> = { key: Key; id: string }

export function encodeCursor(cursor: KeysetCursor<unknown>) {
	return Buffer.from(JSON.stringify([cursor.key, cursor.id])).toString('base64url')
}

/** A cursor of a link, or null when it is not one; `keyOf` checks the key (undefined: not). */
export function decodeCursor<Key>(
	value: string | undefined,
	keyOf: (key: unknown) => Key | undefined,
): KeysetCursor<Key> | null {
	if (!value) return null
	try {
		const [raw, id] = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as unknown[]
		if (!isUuid(id)) return null
		const key = keyOf(raw)
		return key === undefined ? null : { key, id }
	} catch {
		return null
	}
}

/** A `like` pattern for what starts with `value`, lowercased, its wildcards escaped. */
export function likePrefix(value: string) {
	return `${value.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`
}

/**
 * The page from its fetched rows (pageSize + 1 of them; read backwards when the link was
 * Previous): the rows in order without their sort keys, the first 20 data keys as columns,
 * and the cursors of Previous and Next.
 */
export function keysetPage<Row extends { id: string; sort_key: unknown; data: unknown }>(
	fetched: Row[],
	query: Pick<ListQuery, 'page'>,
	pageSize: number,
	read: { reverse: boolean; after: unknown },
) {
	const more = fetched.length > pageSize
	const rows = fetched.slice(0, pageSize)
	if (read.reverse) rows.reverse()
	const first = rows[0]
	const last = rows.at(-1)
	const hasPrevious = read.reverse ? more : query.page > 1 || read.after !== null
	const hasNext = read.reverse ? true : more
	return {
		rows: rows.map(({ sort_key: _, ...row }) => row),
		dataKeys: [
			...new Set(rows.flatMap((r) => Object.keys((r.data as Record<string, unknown>) ?? {}))),
		].slice(0, 20),
		firstIndex: (query.page - 1) * pageSize + 1,
		previous:
			hasPrevious && first
				? query.page <= 2
					? { page: 1 }
					: { page: query.page - 1, before: encodeCursor({ key: first.sort_key, id: first.id }) }
				: null,
		next:
			hasNext && last
				? { page: query.page + 1, after: encodeCursor({ key: last.sort_key, id: last.id }) }
				: null,
	}
}
