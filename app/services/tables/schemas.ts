import { z } from 'zod'

export const DENSITIES = ['comfortable', 'compact'] as const
export type Density = (typeof DENSITIES)[number]

const ColumnKey = z.string().regex(/^[a-z][a-z0-9-]{0,39}$/)

/**
 * The column chooser of a data table (components/ui/data-table.tsx): `columns` lists every
 * column that can be hidden, `show` the ones ticked; what is listed and not ticked is hidden.
 */
export const TablePreferencesSchema = z.object({
	table: ColumnKey,
	columns: z.array(ColumnKey).max(40).default([]),
	show: z.array(ColumnKey).max(40).default([]),
	density: z.enum(DENSITIES).default('comfortable'),
	redirectTo: z.string().max(2000).optional(),
})
