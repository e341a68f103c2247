import { Link } from 'react-router'
import type { Route } from './+types/list-import-report'
import { JobStatusBadge } from '../components/lists/job-status.tsx'
import { buttonClasses } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { requestContext } from '../context.server.ts'
import { importReport } from '../services/imports/import-report.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { DataTable } from '../components/ui/data-table.tsx'

export async function loader({ request, params, context }: Route.LoaderArgs) {
	const { account } = context.get(requestContext)
	const after = Number(new URL(request.url).searchParams.get('after') ?? 0)
	const report = await importReport(
		account,
		params.listId,
		Number.isInteger(after) && after > 0 ? after : 0,
	)
	return {
		list: {
			id: report.list.id,
			name: report.list.name,
			status: report.list.status,
			fileName: report.list.fileName,
			error: report.list.error,
		},
		summary: report.summary,
		errors: report.errors,
		nextAfterLine: report.nextAfterLine,
		paged: after > 0,
	}
}

export default function ImportReport({ loaderData }: Route.ComponentProps) {
	const { list, summary, errors, nextAfterLine, paged } = loaderData
	const skipped = summary.invalid + summary.duplicates
	return (
		<>
			<PageHeader
				title={`Import report: ${list.name}`}
				description={
					<span className="flex flex-wrap items-center gap-3">
						<JobStatusBadge status={list.status} />
						{list.fileName ? <span>{list.fileName}</span> : null}
					</span>
				}
				actions={
					<div className="flex flex-wrap gap-2">
						<Link to={`/lists/${list.id}`} className={buttonClasses('secondary')}>
							Open the list
						</Link>
						{skipped > 0 ? (
							<a
								href={`/lists/${list.id}/import-report/download`}
								className={buttonClasses('primary')}
								download
							>
								Download the report (CSV)
							</a>
						) : null}
					</div>
				}
			/>
			<Card className="mb-6">
				<dl className="grid gap-4 text-sm sm:grid-cols-5" data-testid="import-summary">
					<div>
						<dt className="text-slate-600">Rows read</dt>
						<dd className="text-lg font-semibold tabular-nums">
							{summary.rowsDone.toLocaleString('en')} of {summary.rowsTotal.toLocaleString('en')}
						</dd>
					</div>
					<div>
						<dt className="text-slate-600">Imported</dt>
						<dd className="text-lg font-semibold tabular-nums">
							{summary.imported.toLocaleString('en')}
						</dd>
					</div>
					<div>
						<dt className="text-slate-600">Invalid</dt>
						<dd className="text-lg font-semibold tabular-nums">
							{summary.invalid.toLocaleString('en')}
						</dd>
					</div>
					<div>
						<dt className="text-slate-600">Duplicates</dt>
						<dd className="text-lg font-semibold tabular-nums">
							{summary.duplicates.toLocaleString('en')}
						</dd>
					</div>
					<div>
						<dt className="text-slate-600">On do not contact</dt>
						<dd className="text-lg font-semibold tabular-nums" data-testid="import-suppressed">
							{summary.suppressed > 0 ? (
								<Link to={`/lists/${list.id}?suppressed=1`} className="text-indigo-700 underline">
									{summary.suppressed.toLocaleString('en')}
								</Link>
							) : (
								'0'
							)}
						</dd>
					</div>
				</dl>
				{list.error ? <p className="mt-4 text-sm text-red-700">{list.error}</p> : null}
			</Card>
			{errors.length === 0 ? (
				<Card>
					<p className="text-slate-700">
						{paged ? 'No more skipped rows.' : 'No row was skipped.'}
					</p>
				</Card>
			) : (
				<DataTable
					label="Skipped rows by line"
					rows={errors}
					rowKey={(error) => String(error.line)}
					rowProps={() => ({ 'data-testid': 'import-error' })}
					columns={[
						{
							key: 'line',
							label: 'Line',
							align: 'right',
							className: 'tabular-nums',
							cell: (error) => error.line,
						},
						{
							key: 'problem',
							label: 'Problem',
							cell: (error) => (error.kind === 'invalid' ? 'Invalid' : 'Duplicate'),
						},
						{
							key: 'email',
							label: 'Email',
							className: 'max-w-72 truncate',
							cell: (error) => <span title={error.email ?? undefined}>{error.email ?? ''}</span>,
						},
						{ key: 'reason', label: 'Reason', cell: (error) => error.message },
					]}
				/>
			)}
			<nav aria-label="Pages" className="mt-4 flex gap-2">
				{paged ? (
					<Link to={`/lists/${list.id}/import-report`} className={buttonClasses('secondary')}>
						First page
					</Link>
				) : null}
				{nextAfterLine !== null ? (
					<Link
						to={`/lists/${list.id}/import-report?after=${nextAfterLine}`}
						className={buttonClasses('secondary')}
						rel="next"
					>
						Next
					</Link>
				) : null}
			</nav>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Import report')
