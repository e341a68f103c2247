import type { ReactNode } from 'react'
import { ScrollRegion } from './scroll-region.tsx'

export type DataColumn = {
	label: ReactNode
	/** numbers and dates that line up on the right */
	align?: 'right'
	/** a heading read to screen readers only (an actions column) */
	hidden?: boolean
}

const STYLES = {
	// job tables (files, uploads, scrapes): small capitals, a region the keyboard can scroll
	jobs: {
		head: 'bg-slate-50 text-left text-xs font-semibold tracking-wide text-slate-600 uppercase',
		th: 'px-4 py-3',
		body: 'divide-y divide-slate-100 bg-white',
	},
	// tables of things owned (domains, inboxes): each row headed by its name
	plain: {
		head: 'bg-slate-50 text-left text-slate-600',
		th: 'px-4 py-3 font-semibold',
		body: 'divide-y divide-slate-100',
	},
}

/**
 * A table in a card that scrolls sideways on a phone: its column headings, then `children`,
 * its rows. `label` names it (to screen readers, and as the scroll region's name).
 */
export function DataTable({
	label,
	caption = false,
	columns,
	style = 'jobs',
	testId,
	children,
}: {
	label: string
	/** say the label as the table's caption too */
	caption?: boolean
	columns: DataColumn[]
	style?: keyof typeof STYLES
	testId?: string
	children: ReactNode
}) {
	const { head, th, body } = STYLES[style]
	const table = (
		<table className="min-w-full divide-y divide-slate-200 text-sm" data-testid={testId}>
			{caption ? <caption className="sr-only">{label}</caption> : null}
			<thead className={head}>
				<tr>
					{columns.map((column, index) => (
						<th
							key={index}
							scope="col"
							className={column.align === 'right' ? `${th} text-right` : th}
						>
							{column.hidden ? <span className="sr-only">{column.label}</span> : column.label}
						</th>
					))}
				</tr>
			</thead>
			<tbody className={body}>{children}</tbody>
		</table>
	)
	const box = 'rounded-lg bg-white shadow-sm ring-1 ring-slate-200'
	// the owned-things tables were never a focusable region: kept as they were
	return style === 'plain' ? (
		<div className={`relative overflow-x-auto ${box}`}>{table}</div>
	) : (
		<ScrollRegion className={box} label={label}>
			{table}
		</ScrollRegion>
	)
}
