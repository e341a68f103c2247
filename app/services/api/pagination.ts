import { z } from 'zod'

// Cursor pagination of the API's lists (as Stripe's and Instantly's): `limit` and
// `starting_after` in, `has_more` and `next_cursor` out; the next page starts after the cursor
// in a stable order (ties broken by id), however rows are added meanwhile.

const CURSOR = /^[A-Za-z0-9_-]{1,500}$/

export const PageQuery = z.object({
	limit: z.coerce.number().int().min(1).max(100).default(20).meta({
		description: 'How many items (1 to 100).',
	}),
	starting_after: z.string().regex(CURSOR, 'Not a cursor').optional().meta({
		description: 'The `next_cursor` of the previous page.',
	}),
})

export function listOf<T extends z.ZodType>(item: T) {
	return z.object({
		object: z.literal('list'),
		data: z.array(item),
		has_more: z.boolean(),
		next_cursor: z.string().nullable().meta({ description: 'Pass as `starting_after`.' }),
	})
}

/** The page from limit + 1 fetched rows. */
export function pageOf<Row, Item>(
	rows: Row[],
	limit: number,
	cursorOf: (row: Row) => string,
	toItem: (row: Row) => Item,
) {
	const more = rows.length > limit
	const page = rows.slice(0, limit)
	const last = page.at(-1)
	return {
		object: 'list' as const,
		data: page.map(toItem),
		has_more: more,
		next_cursor: more && last ? cursorOf(last) : null,
	}
}

/** A (created_at, id) place in a newest-first order (`page_at`: to the microsecond). */
export function createdCursor(row: { page_at: string; id: string }) {
	return Buffer.from(`${row.page_at}|${row.id}`).toString('base64url')
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The place a cursor names, or undefined when it is not one of ours. */
export function readCreatedCursor(cursor: string | undefined) {
	if (!cursor) return null
	const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|')
	if (!at || !id || !ISO.test(at) || !UUID.test(id)) return undefined
	if (Number.isNaN(Date.parse(at))) return undefined
	return { at, id }
}
