import type { ReactNode } from 'react'
import { Form, Link, useNavigation } from 'react-router'
import { isCancelled, isRunning, JobStatusBadge, ProgressBar } from './job-status.tsx'
import { ListCost } from './list-cost.tsx'
import type { ListCostBreakdown } from '../../services/billing/credit-history.server.ts'
import { BulkProgress, type BulkProgressView } from '../ui/bulk-progress.tsx'
import { buttonClasses } from '../ui/button.tsx'
import { PageHeader } from '../ui/card.tsx'
import { inputClasses } from '../ui/field.tsx'
import { DataTable, type RowColumn, type TablePreferencesView } from '../ui/data-table.tsx'
import { PageLinks } from '../ui/page-links.tsx'
import type { ListPageData, ListPageRow } from '../../services/lists/list-page.server.ts'
import {
	countOf,
	LIST_KINDS,
	type ListColumn,
	type ListKindDescriptor,
} from '../../services/lists/list-kinds.ts'
import { listSearch, type ListQuery } from '../../services/lists/list-query.ts'
import { useLiveRefresh } from '../../utils/use-live-refresh.ts'
import { jsonFieldsText } from '../ui/json-fields.tsx'
import { EmailStatusBadge } from '../verification/status-badge.tsx'
import { SuppressedBadge, SuppressedFilterLink } from '../do-not-contact/suppressed-badge.tsx'
import { StatusFilterLinks } from '../verification/status-filter-links.tsx'

/**
 * The page of a lead list or of a company list (its kind's descriptor says which): status and
 * progress, the actions, a search, the sorted table of one page of its rows and the page links.
 * Its loader is app/services/lists/list-page.server.ts.
 */
export function ListPage({
	loaderData,
	cost,
	bulk,
	preferences,
}: {
	loaderData: ListPageData
	/** what the list cost (its loader reads it beside the page) */
	cost?: ListCostBreakdown
	/**
	 * the bulk form (its id, for the rows' checkboxes), and the progress of its last action with
	 * where closing it goes (decisions 0089, 0101)
	 */
	bulk?: {
		formId: string
		toolbar: ReactNode
		status: BulkProgressView | null
		closeTo: string
	}
	/** the user's columns and density for this kind of list's table */
	preferences?: TablePreferencesView
}) {
	const { list, rows, query, summary, total, firstIndex, previous, next, dataKeys, matching } =
		loaderData
	const words = LIST_KINDS[loaderData.kind]
	const search = (q: Partial<ListQuery>) => listSearch(words.kind, q)
	const navigation = useNavigation()
	const running = isRunning(list.status)
	useLiveRefresh(running, 2000)

	const base = {
		q: query.q,
		sort: query.sort,
		dir: query.dir,
		status: query.status,
		suppressed: query.suppressed,
	}
	const sortLink = (sort: string) =>
		search({
			q: query.q,
			status: query.status,
			sort,
			dir: query.sort === sort && query.dir === 'asc' ? 'desc' : 'asc',
		}) || '?'
	const importReport = summary && words.importReportPath?.(list.id)
	return (
		<>
			<PageHeader
				title={list.name}
				description={
					<span className="flex flex-wrap items-center gap-3">
						<JobStatusBadge status={list.status} error={list.error} />
						{running ? <ProgressBar value={list.progress} label={words.progressLabel} /> : null}
						<span data-testid={words.countTestId}>{countOf(words.kind, list.found)}</span>
						{list.fileName ? <span className="text-slate-500">from {list.fileName}</span> : null}
					</span>
				}
				actions={
					<div className="flex flex-wrap gap-2">
						{importReport ? (
							<Link to={importReport} className={buttonClasses('secondary')}>
								Import report
							</Link>
						) : null}
						{words.columnsPath && dataKeys.length ? (
							<Link to={words.columnsPath(list.id)} className={buttonClasses('secondary')}>
								Map columns
							</Link>
						) : null}
						<EnrichLink words={words} listId={list.id} q={query.q} matching={matching} />
						{words.verifyPath ? (
							<Link to={words.verifyPath(list.id)} className={buttonClasses('secondary')}>
								Verify emails
							</Link>
						) : null}
						{words.uploadPath ? (
							<Link to={words.uploadPath(list.id)} className={buttonClasses('secondary')}>
								Upload to EmailBison
							</Link>
						) : null}
						{words.kind === 'leads' && !running ? (
							<Link to={`/lists/${list.id}/dedupe`} className={buttonClasses('secondary')}>
								Remove leads in my other lists
							</Link>
						) : null}
						<a href={words.downloadPath(list.id)} className={buttonClasses('primary')} download>
							Download CSV
						</a>
					</div>
				}
			/>
			{list.error && !isCancelled(list.status, list.error) ? (
				<p
					role="alert"
					className="mb-4 rounded-md bg-red-50 p-3 text-sm text-red-800 ring-1 ring-red-200"
				>
					{list.error}
				</p>
			) : null}
			{importReport && summary && (summary.invalid > 0 || summary.duplicates > 0) ? (
				<p className="mb-4 text-sm text-slate-700">
					{summary.invalid.toLocaleString('en')} invalid and{' '}
					{summary.duplicates.toLocaleString('en')} duplicate rows were skipped;{' '}
					<Link to={importReport} className="text-indigo-700 underline">
						see them by line
					</Link>
					.
				</p>
			) : null}
			{loaderData.suppressed ? (
				<p className="mb-4 text-sm text-slate-700" data-testid="list-suppressed">
					{countOf('leads', loaderData.suppressed)} on your{' '}
					<Link to="/do-not-contact" className="text-indigo-700 underline">
						do-not-contact list
					</Link>
					: never enriched, verified or uploaded.
				</p>
			) : null}
			{cost ? <ListCost cost={cost} /> : null}
			{bulk?.status ? <BulkProgress bulk={bulk.status} closeTo={bulk.closeTo} /> : null}
			<Form method="get" className="mb-4 flex flex-wrap items-end gap-3" role="search">
				<div className="min-w-64 flex-1">
					<label htmlFor="q" className="block text-sm font-medium text-slate-800">
						Search
					</label>
					<input
						id="q"
						name="q"
						type="search"
						defaultValue={query.q}
						placeholder={words.searchPlaceholder}
						className={`mt-1 ${inputClasses}`}
					/>
				</div>
				{query.sort !== words.defaultSort ? (
					<input type="hidden" name="sort" value={query.sort} />
				) : null}
				{query.dir === 'desc' ? <input type="hidden" name="dir" value="desc" /> : null}
				{query.status ? <input type="hidden" name="status" value={query.status} /> : null}
				{query.suppressed ? <input type="hidden" name="suppressed" value="1" /> : null}
				<button type="submit" className={buttonClasses('secondary')}>
					Search
				</button>
				{query.q ? (
					<Link
						to={search({ sort: query.sort, dir: query.dir }) || '?'}
						className={buttonClasses('ghost')}
					>
						Clear
					</Link>
				) : null}
			</Form>
			{words.verifyPath ? (
				<StatusFilterLinks current={query.status} link={(status) => search({ ...base, status })} />
			) : null}
			{words.verifyPath ? (
				<SuppressedFilterLink
					on={Boolean(query.suppressed)}
					to={search({ ...base, suppressed: query.suppressed ? undefined : true }) || '?'}
				/>
			) : null}
			{words.sortMenu ? (
				<div className="mb-3 flex flex-wrap items-center gap-2 text-sm text-slate-700">
					<span id="sort-by">Sort by</span>
					<span className="flex flex-wrap gap-1" role="group" aria-labelledby="sort-by">
						{words.sorts.map((s) => (
							<Link
								key={s.key}
								to={sortLink(s.key)}
								aria-current={query.sort === s.key ? 'true' : undefined}
								className={`rounded px-2 py-1 ${query.sort === s.key ? 'bg-indigo-50 font-semibold text-indigo-800' : 'text-slate-600 hover:bg-slate-100'}`}
							>
								{s.label}
								{arrow(query, s.key)}
							</Link>
						))}
					</span>
				</div>
			) : null}
			<DataTable
				label={words.caption}
				columns={tableColumns(words, dataKeys, list.id)}
				rows={rows}
				rowKey={(row) => row.id}
				rowProps={rowTestId(words.rowTestId)}
				sort={{ sort: query.sort, dir: query.dir }}
				sortHref={(sort, dir) => search({ q: query.q, status: query.status, sort, dir }) || '?'}
				preferences={preferences}
				selection={bulk ? { formId: bulk.formId, rowLabel: rowName } : undefined}
				toolbar={bulk?.toolbar}
				empty={query.q ? words.empty.search : running ? words.empty.running : words.empty.none}
				// a page of 50 rows: the cells' classes once a row, not on each cell
				rowClassName="*:max-w-64 *:truncate"
				cellsStyledByRow
				busy={navigation.state === 'loading'}
				footer={
					<PageLinks
						label="Pages"
						statusTestId="page-status"
						className=""
						first={firstIndex}
						count={rows.length}
						total={total}
						previous={previous ? search({ ...base, ...previous }) : null}
						next={next ? search({ ...base, ...next }) : null}
					/>
				}
			/>
			<p className="sr-only">
				{words.pageSize} {words.many} a page
			</p>
		</>
	)
}

/**
 * Enrich the list; with a search on, the enrich page opens with it as the run's filter: "Enrich
 * these 12 leads" when the search counted its matches (a lead list), else "Enrich these
 * companies".
 */
function EnrichLink({
	words,
	listId,
	q,
	matching,
}: {
	words: ListKindDescriptor
	listId: string
	q: string
	matching: ListPageData['matching']
}) {
	const path = words.enrichPath(listId)
	if (matching ? matching.count === 0 : !q)
		return (
			<Link to={path} className={buttonClasses('secondary')}>
				Enrich
			</Link>
		)
	return matching ? (
		<Link to={`${path}?${new URLSearchParams({ q })}`} className={buttonClasses('secondary')}>
			Enrich these {matching.count.toLocaleString('en')}
			{matching.more ? '+' : ''} {matching.count === 1 ? words.one : words.many}
		</Link>
	) : (
		<Link to={`${path}?q=${encodeURIComponent(q)}`} className={buttonClasses('secondary')}>
			Enrich these {words.many}
		</Link>
	)
}

const testIds = new Map<string, Record<string, string>>()
/** the rows' data-testid (one object per kind, not one per row) */
function rowTestId(testId: string) {
	let props = testIds.get(testId)
	if (!props) testIds.set(testId, (props = { 'data-testid': testId }))
	return () => props
}

/** The list's columns on DataTable v2: its kind's fields, the list's kept data, Edit. */
function tableColumns(
	words: ListKindDescriptor,
	dataKeys: string[],
	listId: string,
): RowColumn<ListPageRow>[] {
	const field = (row: ListPageRow, key: string) =>
		(row as Record<string, unknown>)[key] as string | number | null
	return [
		...words.columns.map((column): RowColumn<ListPageRow> => ({
			// preferences name columns in [a-z0-9-]
			key: column.key.replace(/_/g, '-'),
			label: column.label,
			sortable: Boolean(column.sort),
			sortKey: column.sort,
			// the row's name (its checkbox says it) stays
			hideable: column.key !== words.columns[0]!.key,
			title: column.shows ? undefined : (row) => titleOf(field(row, column.key)),
			cell: (row) => <CellValue column={column} row={row} value={field(row, column.key)} />,
		})),
		...dataKeys.map((key, index): RowColumn<ListPageRow> => ({
			key: `data-${index}`,
			label: key,
			hideable: false,
			className: 'normal-case',
			title: (row) => formatValue(row.data[key]) || undefined,
			cell: (row) => formatValue(row.data[key]),
		})),
		...(words.rowPath
			? [
					{
						key: 'actions',
						label: 'Actions',
						srOnlyLabel: true,
						hideable: false,
						sticky: true,
						cell: (row: ListPageRow) => (
							<Link
								to={words.rowPath!(listId, row.id)}
								className="font-semibold text-indigo-700 hover:underline"
							>
								Edit<span className="sr-only"> {rowName(row)}</span>
							</Link>
						),
					},
				]
			: []),
	]
}

const titleOf = (value: string | number | null) => (value ? String(value) : undefined)

function CellValue({
	column,
	row,
	value,
}: {
	column: ListColumn
	row: ListPageRow
	value: string | number | null
}) {
	if (column.shows === 'link')
		return value ? (
			<a
				href={safeUrl(String(value))}
				className="text-indigo-700 hover:underline"
				rel="noopener noreferrer nofollow"
				target="_blank"
			>
				Profile
			</a>
		) : null
	if (column.shows === 'count') return <>{value?.toLocaleString('en') ?? ''}</>
	if (column.shows === 'status') {
		const lead = row as { verify_role?: boolean | null; imported_status?: string | null }
		return (
			<>
				<EmailStatusBadge
					status={value as string | null}
					role={lead.verify_role}
					imported={lead.imported_status}
				/>
				<SuppressedBadge entry={(row as { suppressed_by?: string | null }).suppressed_by} />
			</>
		)
	}
	return <>{value ?? ''}</>
}

/** a lead's email, a company's name (or domain): what its checkbox and Edit link say */
function rowName(row: ListPageRow) {
	const { email, name, domain } = row as {
		email?: string
		name?: string | null
		domain?: string | null
	}
	return String(email ?? (name || domain || ''))
}

function arrow(query: ListQuery, sort: string) {
	return query.sort === sort ? (query.dir === 'asc' ? ' ↑' : ' ↓') : ''
}

function safeUrl(url: string) {
	const withScheme = /^https?:\/\//i.test(url) ? url : `https://${url}`
	try {
		const parsed = new URL(withScheme)
		return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : undefined
	} catch {
		return undefined
	}
}

function formatValue(value: unknown) {
	if (value === null || value === undefined) return ''
	// a JSON answer as its fields on one line: "industry: Software · employees: 120"
	return typeof value === 'string' ? value : jsonFieldsText(value)
}
