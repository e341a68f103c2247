/**
 * DataTable: every list of things (issue 34 point 2, decision 0080).
 *
 * Two ways to use it:
 * - Simple (v1, unchanged): `columns` of `{ label, align?, hidden? }` and the rows as `children`.
 * - Full (v2): `rows` and `columns` of `{ key, label, cell, sortable?, hideable?, rowHeader?,
 *   align?, nowrap? }`; each cell is rendered by its column, so the table can hide columns and
 *   set the density. Everything is plain links and forms, so it works without JavaScript:
 *   - `sort` ({ sort, dir }, read by the loader with `readSort` from utils/table-sort.ts): sortable
 *     headings are links setting `?sort=key&dir=asc|desc` (the rest of the URL kept, `page`
 *     dropped), with `aria-sort` on the sorted one.
 *   - `preferences` ({ table, hiddenColumns, density }, from `tablePreferences(userId, table)` in
 *     services/tables): a "Columns" <details> whose form posts to /table-preferences (columns
 *     to show, comfortable or compact) and comes back; remembered per user and table.
 *   - `selection` ({ formId, rowLabel }): a checkbox per row, `name="ids"`, tied to the form
 *     `formId` by its `form` attribute, so the bulk form (BulkToolbar, components/ui/
 *     bulk-toolbar.tsx, passed as `toolbar`) can sit outside the table. With JavaScript a
 *     heading checkbox selects the page and the toolbar counts the selection.
 *   - the header sticks while the table scrolls inside its card, sideways and down.
 *   - a table paged by keys (a list's leads, decision 0101): `sortHref` builds the sort links
 *     (dropping the page's cursor), `footer` holds the Previous/Next links (PageLinks) inside
 *     the card, `empty` says why there is no row, and `cellsStyledByRow` puts the padding and
 *     colour of the cells on their row (`*:` classes), so a page of many cells stays small.
 */
import { useEffect, useState, type ReactNode } from 'react'
import { Form, Link, useLocation } from 'react-router'
import { Columns3 } from 'lucide-react'
import { cn } from '../../utils/cn.ts'
import type { TableSort } from '../../utils/table-sort.ts'
import { useHydrated } from '../../utils/use-hydrated.ts'
import { buttonClasses } from './button.tsx'
import { ScrollRegion } from './scroll-region.tsx'

export type DataColumn = {
	label: ReactNode
	/** numbers and dates that line up on the right */
	align?: 'right'
	/** a heading read to screen readers only (an actions column) */
	hidden?: boolean
}

/** A column of a full (v2) table. */
export type RowColumn<T> = {
	/** names the column in the URL (sort) and in the user's preferences: [a-z0-9-] */
	key: string
	label: string
	cell: (row: T) => ReactNode
	sortable?: boolean
	/** the sort's name in the URL when it is not the column's key */
	sortKey?: string
	/** the cell's title (the full value of a truncated cell) */
	title?: (row: T) => string | undefined
	/** may be hidden by the user (default: true, except the row header) */
	hideable?: boolean
	/** the cell is the row's heading (`<th scope="row">`) */
	rowHeader?: boolean
	align?: 'right'
	/** the heading is read to screen readers only */
	srOnlyLabel?: boolean
	/** no wrapping of the cell's content (names, dates, buttons) */
	nowrap?: boolean
	/** stays at the right edge while the table scrolls sideways (a row's actions) */
	sticky?: boolean
	className?: string
}

// the cell's own background hides what scrolls under it; the shadow marks the edge
const STICKY = 'sticky right-0 shadow-[-1px_0_0_0_rgb(226_232_240)]'

export type TablePreferencesView = {
	table: string
	hiddenColumns: string[]
	density: 'comfortable' | 'compact'
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

const PADDING = { comfortable: 'px-4 py-3', compact: 'px-3 py-1.5' }
// the same on the row, for its cells (cellsStyledByRow)
const ROW_PADDING = {
	comfortable: '*:px-4 *:py-3 *:text-slate-700',
	compact: '*:px-3 *:py-1.5 *:text-slate-700',
}

type SimpleProps = {
	label: string
	/** say the label as the table's caption too */
	caption?: boolean
	columns: DataColumn[]
	style?: keyof typeof STYLES
	testId?: string
	children: ReactNode
}

type FullProps<T> = {
	label: string
	caption?: boolean
	columns: RowColumn<T>[]
	rows: T[]
	rowKey: (row: T) => string
	/** attributes of each row (e.g. data-* for tests) */
	rowProps?: (row: T) => Record<string, string>
	sort?: TableSort
	preferences?: TablePreferencesView
	selection?: { formId: string; rowLabel: (row: T) => string }
	/** above the table, inside its card: the bulk toolbar */
	toolbar?: ReactNode
	testId?: string
	/** a sort heading's link (default: this URL with sort and dir set, `page` dropped) */
	sortHref?: (sort: string, dir: 'asc' | 'desc') => string
	/** below the table, inside its card: the page links */
	footer?: ReactNode
	/** the one row shown when there is none */
	empty?: ReactNode
	/** classes of every row (e.g. `*:max-w-64 *:truncate`) */
	rowClassName?: string
	/** the cells' padding and colour set once on their row, not on each cell */
	cellsStyledByRow?: boolean
	/** aria-busy on the table (the next page is loading) */
	busy?: boolean
}

/**
 * A table in a card that scrolls sideways on a phone: its column headings, then `children`,
 * its rows. `label` names it (to screen readers, and as the scroll region's name). With `rows`,
 * the full table described at the top of this file.
 */
export function DataTable<T>(props: SimpleProps | FullProps<T>) {
	if ('rows' in props) return <FullTable {...props} />
	const { label, caption = false, columns, style = 'jobs', testId, children } = props
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

function FullTable<T>({
	label,
	caption = true,
	columns,
	rows,
	rowKey,
	rowProps,
	sort,
	preferences,
	selection,
	toolbar,
	testId,
	sortHref,
	footer,
	empty,
	rowClassName,
	cellsStyledByRow,
	busy,
}: FullProps<T>) {
	const hidden = new Set(preferences?.hiddenColumns ?? [])
	const shown = columns.filter((c) => !(canHide(c) && hidden.has(c.key)))
	const density = preferences?.density ?? 'comfortable'
	const pad = PADDING[density]
	// cellsStyledByRow: the row carries the padding and colour, a cell only what is its own
	const cellPad = cellsStyledByRow ? undefined : pad
	const rowClasses = cn(cellsStyledByRow && ROW_PADDING[density], rowClassName) || undefined
	return (
		<div className="rounded-lg bg-white shadow-sm ring-1 ring-slate-200">
			{toolbar || preferences ? (
				<div className="flex flex-wrap items-start justify-between gap-3 border-b border-slate-200 px-4 py-3">
					<div className="min-w-0 flex-1">{toolbar}</div>
					{preferences ? <ColumnChooser columns={columns} preferences={preferences} /> : null}
				</div>
			) : null}
			{/* sideways and down inside the card: the sticky header stays in view */}
			<ScrollRegion
				label={label}
				className={cn('max-h-[75vh] overflow-y-auto', !footer && 'rounded-b-lg')}
			>
				<table
					className="min-w-full divide-y divide-slate-200 text-sm"
					data-testid={testId}
					data-density={density}
					aria-busy={busy || undefined}
				>
					{caption ? <caption className="sr-only">{label}</caption> : null}
					<thead className="sticky top-0 z-10 bg-slate-50 text-left text-slate-600 shadow-[0_1px_0_0_rgb(226_232_240)]">
						<tr>
							{selection ? (
								<th scope="col" className={cn(pad, 'w-10')}>
									<SelectPage formId={selection.formId} />
								</th>
							) : null}
							{shown.map((column) => (
								<HeaderCell
									key={column.key}
									column={column}
									sort={sort}
									pad={pad}
									sortHref={sortHref}
								/>
							))}
						</tr>
					</thead>
					<tbody className="divide-y divide-slate-100">
						{rows.length === 0 && empty ? (
							<tr>
								<td
									colSpan={shown.length + (selection ? 1 : 0)}
									className={cn(pad, 'text-slate-600')}
								>
									{empty}
								</td>
							</tr>
						) : null}
						{rows.map((row) => {
							const key = rowKey(row)
							return (
								<tr key={key} className={rowClasses} {...rowProps?.(row)}>
									{selection ? (
										<td className={cn(cellPad, 'w-10')}>
											<input
												type="checkbox"
												name="ids"
												value={key}
												form={selection.formId}
												aria-label={`Select ${selection.rowLabel(row)}`}
												className="size-4 rounded border-slate-300 accent-indigo-700"
											/>
										</td>
									) : null}
									{shown.map((column) => {
										const className =
											cn(
												cellPad,
												column.align === 'right' && 'text-right',
												column.nowrap && 'whitespace-nowrap',
												column.rowHeader
													? 'text-left font-medium text-slate-900'
													: !cellsStyledByRow && 'text-slate-700',
												column.sticky && cn(STICKY, 'bg-white'),
												column.className,
											) || undefined
										const title = column.title?.(row)
										return column.rowHeader ? (
											<th key={column.key} scope="row" className={className} title={title}>
												{column.cell(row)}
											</th>
										) : (
											<td key={column.key} className={className} title={title}>
												{column.cell(row)}
											</td>
										)
									})}
								</tr>
							)
						})}
					</tbody>
				</table>
			</ScrollRegion>
			{footer ? <div className="border-t border-slate-200 px-4 py-3">{footer}</div> : null}
		</div>
	)
}

const canHide = (column: RowColumn<never>) => column.hideable ?? !column.rowHeader

function HeaderCell<T>({
	column,
	sort,
	pad,
	sortHref,
}: {
	column: RowColumn<T>
	sort?: TableSort
	pad: string
	sortHref?: FullProps<T>['sortHref']
}) {
	const sortKey = column.sortKey ?? column.key
	const active = sort?.sort === sortKey
	const className = cn(
		pad,
		'font-semibold whitespace-nowrap',
		column.align === 'right' && 'text-right',
		column.sticky && cn(STICKY, 'bg-slate-50'),
	)
	if (!column.sortable || !sort) {
		return (
			<th scope="col" className={className}>
				{column.srOnlyLabel ? <span className="sr-only">{column.label}</span> : column.label}
			</th>
		)
	}
	return (
		<th
			scope="col"
			className={className}
			aria-sort={active ? (sort.dir === 'asc' ? 'ascending' : 'descending') : undefined}
		>
			<SortLink sortKey={sortKey} label={column.label} sort={sort} sortHref={sortHref} />
		</th>
	)
}

/**
 * A link that sorts by `sortKey` (`?sort=key&dir=asc|desc`, the rest of the URL kept, `page`
 * dropped; again on the sorted key: the other way): a sortable heading's, or a sort choice of a
 * list that is not a table.
 */
export function SortLink({
	sortKey,
	label,
	sort,
	sortHref,
}: {
	sortKey: string
	label: string
	sort: TableSort
	/** where a sort goes when the page's paging needs more than `page` dropped (keyset cursors) */
	sortHref?: (sortKey: string, dir: 'asc' | 'desc') => string
}) {
	const location = useLocation()
	const active = sort.sort === sortKey
	const dir = active && sort.dir === 'asc' ? 'desc' : 'asc'
	const params = new URLSearchParams(location.search)
	params.set('sort', sortKey)
	params.set('dir', dir)
	params.delete('page')
	return (
		<Link
			to={sortHref ? sortHref(sortKey, dir) : `${location.pathname}?${params}`}
			preventScrollReset
			className="inline-flex items-center gap-1 hover:text-slate-900 hover:underline"
		>
			{label}
			<span aria-hidden className={active ? 'text-slate-900' : 'text-slate-400'}>
				{active ? (sort.dir === 'asc' ? '▲' : '▼') : '↕'}
			</span>
			<span className="sr-only">
				{active ? `, sorted ${sort.dir === 'asc' ? 'ascending' : 'descending'}` : ', sort'}
			</span>
		</Link>
	)
}

/** With JavaScript: the heading checkbox selects (or clears) every row of the page. */
export function SelectPage({ formId }: { formId: string }) {
	const hydrated = useHydrated()
	const { count, total } = useSelectedCount(formId)
	if (!hydrated) return <span className="sr-only">Select</span>
	return (
		<input
			type="checkbox"
			aria-label="Select all rows on this page"
			checked={total > 0 && count === total}
			ref={(input) => {
				if (input) input.indeterminate = count > 0 && count < total
			}}
			onChange={(event) => {
				for (const box of rowBoxes(formId)) box.checked = event.currentTarget.checked
				document.dispatchEvent(new Event(`selection:${formId}`))
			}}
			className="size-4 rounded border-slate-300 accent-indigo-700"
		/>
	)
}

function rowBoxes(formId: string) {
	return [
		...document.querySelectorAll<HTMLInputElement>(
			`input[type=checkbox][name=ids][form="${CSS.escape(formId)}"]`,
		),
	]
}

/** How many rows of the bulk form `formId` are ticked, of how many (after hydration). */
export function useSelectedCount(formId: string) {
	const [state, setState] = useState({ count: 0, total: 0 })
	useEffect(() => {
		const update = () => {
			const boxes = rowBoxes(formId)
			setState({ count: boxes.filter((b) => b.checked).length, total: boxes.length })
		}
		update()
		const onChange = (event: Event) => {
			const target = event.target as HTMLInputElement | null
			if (target?.getAttribute?.('form') === formId) update()
		}
		document.addEventListener('change', onChange)
		document.addEventListener(`selection:${formId}`, update)
		return () => {
			document.removeEventListener('change', onChange)
			document.removeEventListener(`selection:${formId}`, update)
		}
	}, [formId])
	return state
}

/** Which columns show and how dense: a form in a <details>, saved per user (no JavaScript needed). */
function ColumnChooser<T>({
	columns,
	preferences,
}: {
	columns: RowColumn<T>[]
	preferences: TablePreferencesView
}) {
	const location = useLocation()
	const hideable = columns.filter(canHide)
	const hidden = new Set(preferences.hiddenColumns)
	return (
		<details className="relative" data-testid="column-chooser">
			<summary className={cn(buttonClasses('secondary'), 'cursor-pointer list-none')}>
				<Columns3 aria-hidden className="size-4" />
				Columns
			</summary>
			<Form
				method="post"
				action="/table-preferences"
				className="absolute right-0 z-20 mt-2 w-64 space-y-3 rounded-md bg-white p-4 text-sm shadow-lg ring-1 ring-slate-200"
			>
				<input type="hidden" name="table" value={preferences.table} />
				<input type="hidden" name="redirectTo" value={location.pathname + location.search} />
				<fieldset>
					<legend className="font-medium text-slate-800">Show columns</legend>
					{hideable.map((column) => (
						<label key={column.key} className="mt-2 flex items-center gap-2 text-slate-700">
							<input type="hidden" name="columns" value={column.key} />
							<input
								type="checkbox"
								name="show"
								value={column.key}
								defaultChecked={!hidden.has(column.key)}
								className="size-4 rounded border-slate-300 accent-indigo-700"
							/>
							{column.label}
						</label>
					))}
				</fieldset>
				<fieldset>
					<legend className="font-medium text-slate-800">Density</legend>
					{(['comfortable', 'compact'] as const).map((density) => (
						<label key={density} className="mt-2 flex items-center gap-2 text-slate-700 capitalize">
							<input
								type="radio"
								name="density"
								value={density}
								defaultChecked={preferences.density === density}
								className="size-4 accent-indigo-700"
							/>
							{density}
						</label>
					))}
				</fieldset>
				<button type="submit" className={buttonClasses('primary', 'w-full')}>
					Save columns
				</button>
			</Form>
		</details>
	)
}
