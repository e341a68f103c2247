import { Form, Link, useNavigation } from 'react-router'
import type { Route } from './+types/company-list'
import {
	isCancelled,
	isRunning,
	JobStatusBadge,
	ProgressBar,
} from '../components/lists/job-status.tsx'
import { buttonClasses } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { inputClasses } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import { listCompaniesPage } from '../services/lists/companies-page.server.ts'
import {
	COMPANIES_PAGE_SIZE,
	companiesSearch,
	type CompanySort,
} from '../services/lists/companies-query.ts'
import { pageTitle } from '../utils/meta.ts'
import { useLiveRefresh } from '../utils/use-live-refresh.ts'
import { PageLinks } from '../components/ui/page-links.tsx'

export async function loader({ request, params, context }: Route.LoaderArgs) {
	const { account } = context.get(requestContext)
	const page = await listCompaniesPage(account, params.listId, new URL(request.url).searchParams)
	const { list } = page
	return {
		...page,
		list: {
			id: list.id,
			name: list.name,
			sourceType: list.source_type,
			status: list.status,
			progress: list.progress,
			requested: list.requested,
			found: list.found,
			error: list.error,
			createdAt: list.created_at.toISOString(),
		},
	}
}

const COLUMNS: { key: string; label: string; sort?: CompanySort }[] = [
	{ key: 'name', label: 'Name', sort: 'name' },
	{ key: 'domain', label: 'Domain', sort: 'domain' },
	{ key: 'industry', label: 'Industry' },
	{ key: 'employees', label: 'Employees' },
	{ key: 'location', label: 'Location' },
	{ key: 'linkedin_url', label: 'LinkedIn' },
	{ key: 'description', label: 'Description' },
]

export default function CompanyListPage({ loaderData }: Route.ComponentProps) {
	const { list, companies, query, total, firstIndex, previous, next, dataKeys } = loaderData
	const navigation = useNavigation()
	const running = isRunning(list.status)
	useLiveRefresh(running, 2000)

	const base = { q: query.q, sort: query.sort, dir: query.dir }
	const sortLink = (sort: CompanySort) =>
		companiesSearch({
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
						{running ? <ProgressBar value={list.progress} label="Search progress" /> : null}
						<span data-testid="company-count">
							{list.found.toLocaleString('en')} {list.found === 1 ? 'company' : 'companies'}
						</span>
					</span>
				}
				actions={
					<div className="flex flex-wrap gap-2">
						{/* with a search on, the enrich page opens with it as the run's filter */}
						<Link
							to={`/company-lists/${list.id}/enrich${query.q ? `?q=${encodeURIComponent(query.q)}` : ''}`}
							className={buttonClasses('secondary')}
						>
							{query.q ? 'Enrich these companies' : 'Enrich'}
						</Link>
						<a
							href={`/lists/${list.id}/download?kind=companies`}
							className={buttonClasses('primary')}
							download
						>
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
						placeholder="Start of a company name or a domain"
						className={`mt-1 ${inputClasses}`}
					/>
				</div>
				{query.sort !== 'name' ? <input type="hidden" name="sort" value={query.sort} /> : null}
				{query.dir === 'desc' ? <input type="hidden" name="dir" value="desc" /> : null}
				<button type="submit" className={buttonClasses('secondary')}>
					Search
				</button>
				{query.q ? (
					<Link
						to={companiesSearch({ sort: query.sort, dir: query.dir }) || '?'}
						className={buttonClasses('ghost')}
					>
						Clear
					</Link>
				) : null}
			</Form>
			<Card className="overflow-x-auto p-0">
				<table
					className="min-w-full divide-y divide-slate-200 text-sm"
					aria-busy={navigation.state === 'loading' || undefined}
				>
					<caption className="sr-only">Companies of {list.name}</caption>
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
						{companies.length === 0 ? (
							<tr>
								<td colSpan={COLUMNS.length + dataKeys.length} className="px-4 py-6 text-slate-600">
									{query.q
										? 'No company matches this search.'
										: running
											? 'The companies appear here as they are found.'
											: 'This list has no companies.'}
								</td>
							</tr>
						) : (
							companies.map((company) => (
								<tr key={company.id} data-testid="company-row">
									{COLUMNS.map((column) => (
										<td
											key={column.key}
											className="max-w-64 truncate px-4 py-2 text-slate-800"
											title={
												column.key === 'linkedin_url' || column.key === 'employees'
													? undefined
													: ((company[column.key as keyof typeof company] as string | null) ??
														undefined)
											}
										>
											{column.key === 'linkedin_url' && company.linkedin_url ? (
												<a
													href={safeUrl(company.linkedin_url)}
													className="text-indigo-700 hover:underline"
													rel="noopener noreferrer nofollow"
													target="_blank"
												>
													Profile
												</a>
											) : column.key === 'employees' ? (
												(company.employees?.toLocaleString('en') ?? '')
											) : (
												((company[column.key as keyof typeof company] as string | null) ?? '')
											)}
										</td>
									))}
									{dataKeys.map((key) => (
										<td
											key={key}
											className="max-w-64 truncate px-4 py-2 text-slate-800"
											title={formatValue(company.data[key])}
										>
											{formatValue(company.data[key])}
										</td>
									))}
								</tr>
							))
						)}
					</tbody>
				</table>
			</Card>
			<PageLinks
				label="Pages"
				statusTestId="page-status"
				first={firstIndex}
				count={companies.length}
				total={total}
				previous={previous ? companiesSearch({ ...base, ...previous }) : null}
				next={next ? companiesSearch({ ...base, ...next }) : null}
			/>
			<p className="sr-only">{COMPANIES_PAGE_SIZE} companies a page</p>
		</>
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
	pageTitle(matches, loaderData?.list.name ?? 'Company list')
