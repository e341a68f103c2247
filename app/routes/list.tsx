import { useEffect } from 'react'
import { Form, Link, useNavigation, useRevalidator } from 'react-router'
import type { Route } from './+types/list'
import {
	isCancelled,
	isRunning,
	JobStatusBadge,
	ProgressBar,
} from '../components/lists/job-status.tsx'
import { buttonClasses } from '../components/ui/button.tsx'
import { PageHeader } from '../components/ui/card.tsx'
import { inputClasses } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import { summaryOf } from '../services/imports/import-report.server.ts'
import { findLeadList } from '../services/lists/find-list.server.ts'
import { leadsPageOf } from '../services/lists/leads-page.server.ts'
import {
	LEAD_SORTS,
	LEADS_PAGE_SIZE,
	leadsSearch,
	type LeadSort,
} from '../services/lists/leads-query.ts'
import { pageTitle } from '../utils/meta.ts'
import { ScrollRegion } from '../components/ui/scroll-region.tsx'
import { PageLinks } from '../components/ui/page-links.tsx'

export async function loader({ request, params, context }: Route.LoaderArgs) {
	const { account } = context.get(requestContext)
	const { list } = await findLeadList(account, params.listId)
	const search = new URL(request.url).searchParams
	// the page (with a search's count, for "Enrich these leads") and the import's counts at
	// once: one round trip after the list's
	const [page, summary] = await Promise.all([
		leadsPageOf(list, search),
		list.sourceType === 'upload' ? summaryOf(list.id) : null,
	])
	return {
		...page,
		// only what the table shows: no email status sent to the browser
		leads: page.leads.map(({ email_status: _, ...lead }) => lead),
		list: {
			id: list.id,
			name: list.name,
			sourceType: list.sourceType,
			status: list.status,
			progress: list.progress,
			requested: list.requested,
			found: list.found,
			error: list.error,
			fileName: list.fileName,
			createdAt: list.createdAt.toISOString(),
		},
		summary,
	}
}

const COLUMNS: { key: string; label: string; sort?: LeadSort }[] = [
	{ key: 'email', label: 'Email', sort: 'email' },
	{ key: 'first_name', label: 'First name', sort: 'first_name' },
	{ key: 'last_name', label: 'Last name', sort: 'last_name' },
	{ key: 'title', label: 'Title' },
	{ key: 'company_name', label: 'Company', sort: 'company' },
	{ key: 'company_domain', label: 'Domain' },
	{ key: 'location', label: 'Location' },
	{ key: 'phone', label: 'Phone' },
	{ key: 'linkedin_url', label: 'LinkedIn' },
]

export default function ListPage({ loaderData }: Route.ComponentProps) {
	const { list, leads, query, summary, total, firstIndex, previous, next, dataKeys, matching } =
		loaderData
	const revalidator = useRevalidator()
	const navigation = useNavigation()
	const running = isRunning(list.status)
	useEffect(() => {
		if (!running) return
		const timer = setInterval(() => {
			if (revalidator.state === 'idle' && document.visibilityState === 'visible')
				void revalidator.revalidate()
		}, 2000)
		return () => clearInterval(timer)
	}, [running, revalidator])

	const base = { q: query.q, sort: query.sort, dir: query.dir }
	const sortLink = (sort: LeadSort) =>
		leadsSearch({
			q: query.q,
			sort,
			dir: query.sort === sort && query.dir === 'asc' ? 'desc' : 'asc',
		})
	return (
		<>
			<PageHeader
				title={list.name}
				description={
					<span className="flex flex-wrap items-center gap-3">
						<JobStatusBadge status={list.status} error={list.error} />
						{running ? <ProgressBar value={list.progress} label="Import progress" /> : null}
						<span data-testid="lead-count">
							{list.found.toLocaleString('en')} {list.found === 1 ? 'lead' : 'leads'}
						</span>
						{list.fileName ? <span className="text-slate-500">from {list.fileName}</span> : null}
					</span>
				}
				actions={
					<div className="flex flex-wrap gap-2">
						{summary ? (
							<Link to={`/lists/${list.id}/import-report`} className={buttonClasses('secondary')}>
								Import report
							</Link>
						) : null}
						{matching && matching.count > 0 ? (
							<Link
								to={`/lists/${list.id}/enrich?${new URLSearchParams({ q: query.q })}`}
								className={buttonClasses('secondary')}
							>
								Enrich these {matching.count.toLocaleString('en')}
								{matching.more ? '+' : ''} {matching.count === 1 ? 'lead' : 'leads'}
							</Link>
						) : (
							<Link to={`/lists/${list.id}/enrich`} className={buttonClasses('secondary')}>
								Enrich
							</Link>
						)}
						<Link to={`/lists/${list.id}/upload`} className={buttonClasses('secondary')}>
							Upload to EmailBison
						</Link>
						<a href={`/lists/${list.id}/download`} className={buttonClasses('primary')} download>
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
			{summary && (summary.invalid > 0 || summary.duplicates > 0) ? (
				<p className="mb-4 text-sm text-slate-700">
					{summary.invalid.toLocaleString('en')} invalid and{' '}
					{summary.duplicates.toLocaleString('en')} duplicate rows were skipped;{' '}
					<Link to={`/lists/${list.id}/import-report`} className="text-indigo-700 underline">
						see them by line
					</Link>
					.
				</p>
			) : null}
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
						placeholder="Start of an email, a name or a company"
						className={`mt-1 ${inputClasses}`}
					/>
				</div>
				{query.sort !== 'added' ? <input type="hidden" name="sort" value={query.sort} /> : null}
				{query.dir === 'desc' ? <input type="hidden" name="dir" value="desc" /> : null}
				<button type="submit" className={buttonClasses('secondary')}>
					Search
				</button>
				{query.q ? (
					<Link
						to={leadsSearch({ sort: query.sort, dir: query.dir }) || '?'}
						className={buttonClasses('ghost')}
					>
						Clear
					</Link>
				) : null}
			</Form>
			<div className="mb-3 flex flex-wrap items-center gap-2 text-sm text-slate-700">
				<span id="sort-by">Sort by</span>
				<SortMenu current={query.sort} dir={query.dir} q={query.q} />
			</div>
			<ScrollRegion className="rounded-lg bg-white shadow-sm ring-1 ring-slate-200" label="Leads">
				<table
					className="min-w-full divide-y divide-slate-200 text-sm"
					aria-busy={navigation.state === 'loading' || undefined}
				>
					<caption className="sr-only">Leads of {list.name}</caption>
					<thead className="bg-slate-50 text-left text-xs font-semibold tracking-wide text-slate-600 uppercase">
						<tr>
							{COLUMNS.map((column) => (
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
											{query.sort === column.sort ? (query.dir === 'asc' ? ' ↑' : ' ↓') : ''}
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
						</tr>
					</thead>
					<tbody className="divide-y divide-slate-100 bg-white">
						{leads.length === 0 ? (
							<tr>
								<td colSpan={COLUMNS.length + dataKeys.length} className="px-4 py-6 text-slate-600">
									{query.q
										? 'No lead matches this search.'
										: running
											? 'The leads appear here as they are imported.'
											: 'This list has no leads.'}
								</td>
							</tr>
						) : (
							leads.map((lead) => (
								// the cells' classes once a row (*:), not on each of its cells: a page of 50
								// rows is a quarter smaller to render, compress and send
								<tr
									key={lead.id}
									data-testid="lead-row"
									className="*:max-w-64 *:truncate *:px-4 *:py-2 *:text-slate-800"
								>
									{COLUMNS.map((column) => {
										const value = lead[column.key as keyof typeof lead] as string | null
										return column.key === 'linkedin_url' ? (
											<td key={column.key}>
												{value ? (
													<a
														href={safeUrl(value)}
														className="text-indigo-700 hover:underline"
														rel="noopener noreferrer nofollow"
														target="_blank"
													>
														Profile
													</a>
												) : null}
											</td>
										) : (
											<td key={column.key} title={value || undefined}>
												{value ?? ''}
											</td>
										)
									})}
									{dataKeys.map((key) => {
										const value = formatValue(lead.data[key])
										return (
											<td key={key} title={value || undefined}>
												{value}
											</td>
										)
									})}
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
				count={leads.length}
				total={total}
				previous={previous ? leadsSearch({ ...base, ...previous }) : null}
				next={next ? leadsSearch({ ...base, ...next }) : null}
			/>
			<p className="sr-only">{LEADS_PAGE_SIZE} leads a page</p>
		</>
	)
}

function SortMenu({ current, dir, q }: { current: LeadSort; dir: 'asc' | 'desc'; q: string }) {
	return (
		<span className="flex flex-wrap gap-1" role="group" aria-labelledby="sort-by">
			{LEAD_SORTS.map((s) => (
				<Link
					key={s.key}
					to={leadsSearch({
						q,
						sort: s.key,
						dir: current === s.key && dir === 'asc' ? 'desc' : 'asc',
					})}
					aria-current={current === s.key ? 'true' : undefined}
					className={`rounded px-2 py-1 ${current === s.key ? 'bg-indigo-50 font-semibold text-indigo-800' : 'text-slate-600 hover:bg-slate-100'}`}
				>
					{s.label}
					{current === s.key ? (dir === 'asc' ? ' ↑' : ' ↓') : ''}
				</Link>
			))}
		</span>
	)
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
	return typeof value === 'string' ? value : JSON.stringify(value)
}

export const meta: Route.MetaFunction = ({ loaderData, matches }) =>
	pageTitle(matches, loaderData?.list.name ?? 'List')
