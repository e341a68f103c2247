import { parseWithZod as parseFormWithZod } from '@conform-to/zod/v4'
import { data } from 'react-router'
import type { z } from 'zod'

// A posted form becomes an object through its field names: `steps[3].kind` makes an array
// of four. Unchecked, `zz[99999999]=1` (40 bytes) made an array of a hundred million slots
// and took the process down, and `steps[4000].kind=ai` came back in the reply and rendered
// 4,001 steps. Every form is held to these bounds before it is parsed, and each array to
// the maximum its schema gives it (decision 0068).

/** Fields in one form: the largest real form (a team member's 500 workspaces) is below. */
export const MAX_FORM_FIELDS = 1_000
/** Characters in one field name. */
export const MAX_FIELD_NAME = 200
/** Array positions a name may use where no schema says more precisely. */
export const MAX_FORM_INDEX = 100

type Entries = Iterable<[string, FormDataEntryValue]>

const SEGMENT = /\[(\d*)\]|[^.[\]]+/g

/**
 * Why the form cannot be taken, or null: too many fields, a name too long, or an array
 * position past the schema's maximum for that array (MAX_FORM_INDEX where it has none).
 */
export function formOutOfBounds(entries: Entries, schema?: z.ZodType): string | null {
	let count = 0
	for (const [name] of entries) {
		if (++count > MAX_FORM_FIELDS) return `This form has more than ${MAX_FORM_FIELDS} fields.`
		if (name.length > MAX_FIELD_NAME) return 'This form has a field name that is too long.'
		if (!name.includes('[')) continue
		let node: z.ZodType | undefined = schema
		for (const [segment, index] of name.matchAll(SEGMENT)) {
			if (index === undefined) {
				node = node && child(node, segment)
				continue
			}
			const max = node ? arrayMaximum(node) : undefined
			if (index === '' || Number(index) >= Math.min(max ?? MAX_FORM_INDEX, MAX_FORM_INDEX))
				return 'This form has a list longer than it can be.'
			node = node && element(node)
		}
	}
	return null
}

/**
 * conform's `parseWithZod`, after the bounds above: a form past them is a 400 (thrown, so
 * nothing of it is echoed into the page). Every form and every search parsed with a
 * schema goes through here (lint refuses the direct import).
 */
export const parseWithZod: typeof parseFormWithZod = ((
	payload: FormData | URLSearchParams,
	options: { schema: z.ZodType | ((intent: unknown) => z.ZodType) },
) => {
	const schema = typeof options.schema === 'function' ? undefined : options.schema
	const problem = formOutOfBounds(payload.entries(), schema)
	if (problem) throw data(problem, { status: 400 })
	return parseFormWithZod(payload, options as never)
}) as never

type Def = {
	type: string
	innerType?: z.ZodType
	in?: z.ZodType
	out?: z.ZodType
	shape?: Record<string, z.ZodType>
	element?: z.ZodType
	options?: z.ZodType[]
	getter?: () => z.ZodType
	checks?: { _zod: { def: { check: string; maximum?: number; length?: number } } }[]
}

function def(schema: z.ZodType): Def {
	return (schema as unknown as { _zod: { def: Def } })._zod.def
}

/** The schema under optional, default, pipe (its input side), lazy and the like. */
function unwrap(schema: z.ZodType): z.ZodType {
	for (let depth = 0; depth < 20; depth++) {
		const d = def(schema)
		// a preprocess is a pipe whose input is the function: the form is read by its output
		const piped = d.in && def(d.in).type === 'transform' ? d.out : d.in
		const inner = d.innerType ?? piped ?? d.getter?.()
		if (!inner || d.type === 'object' || d.type === 'array') return schema
		schema = inner
	}
	return schema
}

function child(schema: z.ZodType, key: string): z.ZodType | undefined {
	const d = def(unwrap(schema))
	if (d.type === 'object') return d.shape?.[key]
	if (d.type === 'union') {
		for (const option of d.options ?? []) {
			const found = child(option, key)
			if (found) return found
		}
	}
	return undefined
}

function element(schema: z.ZodType): z.ZodType | undefined {
	const d = def(unwrap(schema))
	return d.type === 'array' ? d.element : undefined
}

/** An array's largest length by its checks; undefined when it is not an array or has none. */
function arrayMaximum(schema: z.ZodType): number | undefined {
	const d = def(unwrap(schema))
	if (d.type !== 'array') return undefined
	let max: number | undefined
	for (const check of d.checks ?? []) {
		const c = check._zod.def
		const bound =
			c.check === 'max_length' ? c.maximum : c.check === 'length_equals' ? c.length : undefined
		if (bound !== undefined) max = Math.min(max ?? bound, bound)
	}
	return max
}
