import { z } from 'zod'

/** Ids one bulk form may carry (a page or two); beyond, "all matching this filter". */
export const MAX_FORM_IDS = 1000

/**
 * The selection fields of a bulk form (components/ui/bulk-toolbar.tsx): the ticked `ids`, or
 * `scope=all` with the page's filter, whose fields are given here.
 */
export function bulkSelectionFields<F extends z.ZodRawShape>(filter: F) {
	return {
		scope: z.enum(['selected', 'all']).default('selected'),
		ids: z
			.array(z.string().max(64))
			.max(
				MAX_FORM_IDS,
				`Select at most ${MAX_FORM_IDS.toLocaleString('en')} rows, or all matching the filter.`,
			)
			.default([]),
		filter: z.object(filter).default({} as never),
	}
}

/** The selection a parsed bulk form asks for (what startBulkAction takes). */
export function bulkSelection(value: {
	scope: 'selected' | 'all'
	ids: string[]
	filter: Record<string, string | undefined>
}) {
	if (value.scope === 'selected') return { ids: value.ids }
	const filter: Record<string, string> = {}
	for (const [key, v] of Object.entries(value.filter)) if (v) filter[key] = v
	return { filter }
}
