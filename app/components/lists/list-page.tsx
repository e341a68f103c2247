import type { ReactNode } from 'react'
import { Form, Link, useNavigation } from 'react-router'
import { LEADS_BULK_FORM, LeadCheckbox } from './leads-bulk.tsx'
import { isCancelled, isRunning, JobStatusBadge, ProgressBar } from './job-status.tsx'
import { ListCost } from './list-cost.tsx'
import type { ListCostBreakdown } from '../../services/billing/credit-history.server.ts'
import { buttonClasses } from '../ui/button.tsx'
import { PageHeader } from '../ui/card.tsx'
import { inputClasses } from '../ui/field.tsx'
import { SelectPage } from '../ui/data-table.tsx'
import { PageLinks } from '../ui/page-links.tsx'
import { ScrollRegion } from '../ui/scroll-region.tsx'
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
}: {
	loaderData: ListPageData
	/** what the list cost (its loader reads it beside the page) */
	cost?: ListCostBreakdown
	/** a lead list's bulk form and the progress of its last action (decision 0089) */
	bulk?: { toolbar: ReactNode; progress: ReactNode }
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
		})
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
			{bulk?.progress}
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
			{bulk ? (
				<div className="mb-3 rounded-lg bg-white px-4 py-3 shadow-sm ring-1 ring-slate-200">
					{bulk.toolbar}
				</div>
			) : null}
			<ScrollRegion
				className="rounded-lg bg-white shadow-sm ring-1 ring-slate-200"
				label={words.caption}
			>
				<table
					className="min-w-full divide-y divide-slate-200 text-sm"
					aria-busy={navigation.state === 'loading' || undefined}
				>
					<caption className="sr-only">
						{words.caption} of {list.name}
					</caption>
					<thead className="bg-slate-50 text-left text-xs font-semibold tracking-wide text-slate-600 uppercase">
						<tr>
							{bulk ? (
								<th scope="col" className="w-10 px-4 py-3">
									<SelectPage formId={LEADS_BULK_FORM} />
								</th>
							) : null}
							{words.columns.map((column) => (
								<th
									key={column.key}
									scope="col"
									className="px-4 py-3 whitespace-nowrap"
									aria-sort={
										column.sort && query.sort === column.sort
											? query.dir === 'asc'
												? 'ascending'
												: 'descending'
											: undefined
									}
								>
									{column.sort ? (
										<Link to={sortLink(column.sort)} className="hover:text-indigo-700">
											{column.label}
											{arrow(query, column.sort)}
										</Link>
									) : (
										column.label
									)}
								</th>
							))}
							{dataKeys.map((key) => (
								<th key={key} scope="col" className="px-4 py-3 whitespace-nowrap normal-case">
									{key}
								</th>
							))}
							{words.rowPath ? (
								<th scope="col" className="px-4 py-3">
									<span className="sr-only">Actions</span>
								</th>
							) : null}
						</tr>
					</thead>
					<tbody className="divide-y divide-slate-100 bg-white">
						{rows.length === 0 ? (
							<tr>
								<td
									colSpan={
										words.columns.length +
										dataKeys.length +
										(words.rowPath ? 1 : 0) +
										(bulk ? 1 : 0)
									}
									className="px-4 py-6 text-slate-600"
								>
									{query.q ? words.empty.search : running ? words.empty.running : words.empty.none}
								</td>
							</tr>
						) : (
							rows.map((row) => (
								// the cells' classes once a row (*:), not on each of its cells: a page of 50
								// rows is a quarter smaller to render, compress and send
								<tr
									key={row.id}
									data-testid={words.rowTestId}
									className="*:max-w-64 *:truncate *:px-4 *:py-2 *:text-slate-800"
								>
									{bulk ? (
										<td className="w-10">
											<LeadCheckbox id={row.id} label={rowName(row)} />
										</td>
									) : null}
									{words.columns.map((column) => (
										<Cell key={column.key} column={column} row={row} />
									))}
									{dataKeys.map((key) => {
										const value = formatValue(row.data[key])
										return (
											<td key={key} title={value || undefined}>
												{value}
											</td>
										)
									})}
									{words.rowPath ? (
										<td>
											<Link
												to={words.rowPath(list.id, row.id)}
												className="font-semibold text-indigo-700 hover:underline"
											>
												Edit<span className="sr-only"> {rowName(row)}</span>
											</Link>
										</td>
									) : null}
								</tr>
							))
						)}
					</tbody>
				</table>
			</ScrollRegion>
			<PageLinks
				label="Pages"
				statusTestId="page-status"
				first={firstIndex}
				count={rows.length}
				total={total}
				previous={previous ? search({ ...base, ...previous }) : null}
				next={next ? search({ ...base, ...next }) : null}
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

function Cell({ column, row }: { column: ListColumn; row: ListPageRow }) {
	const value = (row as Record<string, unknown>)[column.key] as string | number | null
	if (column.shows === 'link')
		return (
			<td>
				{value ? (
					<a
						href={safeUrl(String(value))}
						className="text-indigo-700 hover:underline"
						rel="noopener noreferrer nofollow"
						target="_blank"
					>
						Profile
					</a>
				) : null}
			</td>
		)
	if (column.shows === 'count') return <td>{value?.toLocaleString('en') ?? ''}</td>
	if (column.shows === 'status') {
		const lead = row as { verify_role?: boolean | null; imported_status?: string | null }
		return (
			<td>
				<EmailStatusBadge
					status={value as string | null}
					role={lead.verify_role}
					imported={lead.imported_status}
				/>
				<SuppressedBadge entry={(row as { suppressed_by?: string | null }).suppressed_by} />
			</td>
		)
	}
	return <td title={value ? String(value) : undefined}>{value ?? ''}</td>
}

function rowName(row: ListPageRow) {
	return 'email' in row ? String(row.email) : ''
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
