import { Form, Link } from 'react-router'
import type { Route } from './+types/uploads'
import {
	isRunning,
	JobStatusBadge,
	PartlyFailedBadge,
	ProgressBar,
} from '../components/lists/job-status.tsx'
import { buttonClasses } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { inputClasses } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import { listUploads } from '../services/emailbison/uploads.server.ts'
import { actingAccount } from '../services/workspaces/access.server.ts'
import { isUuid } from '../utils/http-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { useLiveRefresh } from '../utils/use-live-refresh.ts'
import { DataTable, type RowColumn } from '../components/ui/data-table.tsx'
import { leftOutText } from '../components/emailbison/upload-verify-choices.tsx'

// EmailBison uploads: history per list (?list=), per workspace (?workspace=) and per
// EmailBison workspace (?eb=), with live progress while one runs.
export async function loader({ request, context }: Route.LoaderArgs) {
	const account = actingAccount(context.get(requestContext).account)
	const params = new URL(request.url).searchParams
	const listId = params.get('list')
	const workspaceId = params.get('workspace')
	const eb = params.get('eb')
	const uploads = await listUploads(account, {
		listId: isUuid(listId) ? listId : undefined,
		workspaceId: isUuid(workspaceId) ? workspaceId : undefined,
		ebWorkspaceId: eb && /^\d+$/.test(eb) ? eb : undefined,
	})
	return {
		uploads,
		workspaces: account.workspaces,
		filter: {
			list: isUuid(listId) ? (uploads[0]?.listName ?? 'this list') : null,
			workspace: isUuid(workspaceId) ? workspaceId : '',
			eb: eb && /^\d+$/.test(eb) ? (uploads[0]?.ebWorkspaceName ?? eb) : null,
		},
	}
}

type Upload = Route.ComponentProps['loaderData']['uploads'][number]

const progressOf = (u: Upload) => {
	const done = u.sent + u.rejected
	return { done, progress: u.total ? Math.floor((done / u.total) * 100) : 100 }
}

const COLUMNS: RowColumn<Upload>[] = [
	{
		key: 'list',
		label: 'List',
		cell: (u) => (
			<>
				<Link
					to={`/uploads?list=${u.listId}`}
					className="font-medium text-indigo-700 hover:underline"
				>
					{u.listName}
				</Link>
				<span className="block text-xs text-slate-500">
					{new Date(u.createdAt).toLocaleString('en', {
						dateStyle: 'medium',
						timeStyle: 'short',
					})}
				</span>
				{u.error ? (
					<span className="mt-1 block text-xs text-red-700" data-testid="upload-error">
						{u.error}
					</span>
				) : null}
				{leftOutText(u.leftOut) ? (
					<span className="mt-1 block text-xs text-slate-700" data-testid="left-out">
						{leftOutText(u.leftOut)}
					</span>
				) : null}
				{u.rejectionReasons.length ? (
					<span className="mt-1 block text-xs text-slate-700" data-testid="rejection-reasons">
						{u.reasonsSampled ? 'Rejected, most often: ' : 'Rejected: '}
						{u.rejectionReasons
							.map((r) =>
								u.reasonsSampled
									? r.reason
									: `${r.reason} (${r.leads.toLocaleString('en')} lead${r.leads === 1 ? '' : 's'})`,
							)
							.join(' · ')}
					</span>
				) : null}
			</>
		),
	},
	{
		key: 'emailbison',
		label: 'EmailBison',
		cell: (u) => (
			<>
				<span className="block">{u.campaignName}</span>
				<Link
					to={`/uploads?eb=${u.ebWorkspaceId}`}
					className="text-xs text-indigo-700 hover:underline"
				>
					{u.ebWorkspaceName || `Workspace ${u.ebWorkspaceId}`}
				</Link>
			</>
		),
	},
	{
		key: 'status',
		label: 'Status',
		cell: (u) => (
			<>
				{u.status === 2 && u.rejected > 0 ? (
					// some leads did not make it: not a plain Done
					<PartlyFailedBadge />
				) : (
					<JobStatusBadge status={u.status} error={u.error} />
				)}
			</>
		),
	},
	{
		key: 'progress',
		label: 'Progress',
		cell: (u) => (
			<>
				{isRunning(u.status) ? (
					<>
						<ProgressBar
							value={progressOf(u).progress}
							label={`Progress of the upload of ${u.listName}`}
						/>
						<span className="text-xs text-slate-500">
							{progressOf(u).done.toLocaleString('en')} of {u.total.toLocaleString('en')}
						</span>
					</>
				) : (
					// once finished, what matters is how many made it
					<span className="text-xs text-slate-700">
						{u.sent.toLocaleString('en')} of {u.total.toLocaleString('en')} sent
					</span>
				)}
			</>
		),
	},
	{
		key: 'sent',
		label: 'Sent',
		align: 'right',
		className: 'tabular-nums',
		cell: (u) => <span data-testid="sent">{u.sent.toLocaleString('en')}</span>,
	},
	{
		key: 'created',
		label: 'Created',
		align: 'right',
		className: 'tabular-nums',
		cell: (u) => <>{u.created.toLocaleString('en')}</>,
	},
	{
		key: 'updated',
		label: 'Updated',
		align: 'right',
		className: 'tabular-nums',
		cell: (u) => <>{u.updated.toLocaleString('en')}</>,
	},
	{
		key: 'rejected',
		label: 'Rejected',
		align: 'right',
		className: 'tabular-nums',
		cell: (u) => (
			<span data-testid="rejected">
				{u.rejected.toLocaleString('en')}
				{u.rejected > 0 ? (
					<a
						href={`/uploads/${u.id}/rejected`}
						download
						className="block text-xs font-medium text-indigo-700 hover:underline"
					>
						Download rejected rows
					</a>
				) : null}
			</span>
		),
	},
]

export default function Uploads({ loaderData }: Route.ComponentProps) {
	const { uploads, workspaces, filter } = loaderData
	const running = uploads.some((u) => isRunning(u.status))
	useLiveRefresh(running, 1500)
	const scope = [
		filter.list ? `of ${filter.list}` : null,
		filter.eb ? `to the EmailBison workspace ${filter.eb}` : null,
	]
		.filter(Boolean)
		.join(' ')
	return (
		<>
			<PageHeader
				title="EmailBison uploads"
				description={`Every upload${scope ? ` ${scope}` : ''}, with its progress.`}
				actions={
					<div className="flex flex-wrap items-end gap-2">
						{workspaces.length ? (
							<Form method="get" className="flex items-end gap-2">
								<label htmlFor="workspace" className="sr-only">
									Workspace
								</label>
								<select
									id="workspace"
									name="workspace"
									defaultValue={filter.workspace}
									className={inputClasses}
								>
									<option value="">All workspaces</option>
									{workspaces.map((w) => (
										<option key={w.id} value={w.id}>
											{w.name}
										</option>
									))}
								</select>
								<button type="submit" className={buttonClasses('secondary')}>
									Show
								</button>
							</Form>
						) : null}
						{filter.list || filter.eb ? (
							<Link to="/uploads" className={buttonClasses('secondary')}>
								All uploads
							</Link>
						) : null}
						{running ? (
							<Link to="" reloadDocument className={buttonClasses('secondary')}>
								Refresh
							</Link>
						) : null}
					</div>
				}
			/>
			{uploads.length === 0 ? (
				<Card>
					<p className="text-slate-700">No uploads yet.</p>
					<p className="mt-1 text-sm text-slate-600">
						Open a list and choose Upload to EmailBison.
					</p>
				</Card>
			) : (
				<DataTable
					label="EmailBison uploads"
					testId="uploads"
					columns={COLUMNS}
					rows={uploads}
					rowKey={(u) => u.id}
					rowProps={() => ({ 'data-testid': 'upload-row' })}
				/>
			)}
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'EmailBison uploads')
