import type { SubmissionResult } from '@conform-to/react'
import { Form, Link } from 'react-router'
import type { ScrapeListRow } from '../../services/leads/scrape-lists.server.ts'
import type { TableSort } from '../../utils/table-sort.ts'
import { MoveToWorkspace } from '../workspaces/move-to-workspace.tsx'
import { BulkToolbar } from '../ui/bulk-toolbar.tsx'
import { TableFilter } from '../ui/table-filter.tsx'
import { Badge } from '../ui/choice.tsx'
import { DataTable, type RowColumn, type TablePreferencesView } from '../ui/data-table.tsx'
import { LocalTime } from '../ui/local-time.tsx'
import { Select } from '../ui/select.tsx'
import { ConfirmAction, ConfirmDelete } from './confirm-delete.tsx'
import { isCancelled, isRunning, JobStatusBadge, ProgressBar } from './job-status.tsx'
import { IdempotencyKey } from '../idempotency-key.tsx'

export type ScrapeTableRow = ScrapeListRow & { canMove: boolean }

export const LISTS_BULK_FORM = 'lists-bulk'

function ActionButton({
	intent,
	kind,
	listId,
	label,
	formKey,
}: {
	formKey?: string
	intent: string
	kind: string
	listId: string
	label: string
}) {
	return (
		<Form method="post">
			<input type="hidden" name="intent" value={intent} />
			<input type="hidden" name="kind" value={kind} />
			<input type="hidden" name="listId" value={listId} />
			{formKey ? <IdempotencyKey value={formKey} /> : null}
			<button type="submit" className="text-sm font-medium text-indigo-700 hover:underline">
				{label}
			</button>
		</Form>
	)
}

function RowActions({ list, formKey }: { list: ScrapeTableRow; formKey: string }) {
	return (
		<div className="flex flex-wrap gap-x-3 gap-y-1">
			{list.status === 2 ? (
				<a
					href={`/lists/${list.id}/download?kind=${list.kind}`}
					className="text-sm font-medium text-indigo-700 hover:underline"
				>
					Download CSV
				</a>
			) : null}
			{isRunning(list.status) ? (
				<ConfirmAction
					label="Cancel"
					name={list.name}
					confirmLabel={`Stop “${list.name}”`}
					consequence={`The search stops now: the ${list.kind === 'leads' ? 'leads' : 'companies'} found so far are kept and charged, the credits for the rest come back.`}
					fields={{ intent: 'cancel', kind: list.kind, listId: list.id }}
				/>
			) : null}
			{list.status === 3 ? (
				<ActionButton
					intent="retry"
					formKey={formKey}
					kind={list.kind}
					listId={list.id}
					label="Retry"
				/>
			) : null}
			{list.canMove ? (
				<MoveToWorkspace
					type={list.kind === 'leads' ? 'list' : 'company-list'}
					id={list.id}
					name={list.name}
				/>
			) : null}
			<ConfirmDelete
				name={list.name}
				consequence={`“${list.name}” is deleted with its ${list.found.toLocaleString('en')} ${list.kind === 'leads' ? 'leads' : 'companies'}.`}
				fields={{ intent: 'delete', kind: list.kind, listId: list.id }}
			/>
		</div>
	)
}

/**
 * /scrape's table of lead and company lists (issue 34, decision 0089): DataTable v2 with its
 * sorts, columns and density, and the bulk form (move, delete, export, enrich) over the ticked
 * lists or all matching the name filter.
 */
export function ScrapeTable({
	rows,
	hasWorkspaces,
	locale,
	sort,
	preferences,
	q,
	workspaceId,
	formKey,
	workspaces,
	enrichTargets,
	payWith,
	bulkResult,
}: {
	rows: ScrapeTableRow[]
	hasWorkspaces: boolean
	locale: string
	sort: TableSort
	preferences: TablePreferencesView
	q: string
	workspaceId: string
	formKey: string
	workspaces: { id: string; name: string }[]
	enrichTargets: { value: string; label: string }[]
	payWith: 'ownKey' | 'credits'
	bulkResult?: SubmissionResult<string[]> | null
}) {
	const columns: RowColumn<ScrapeTableRow>[] = [
		{
			key: 'name',
			label: 'List',
			rowHeader: true,
			sortable: true,
			cell: (list) => (
				<>
					<Link
						to={list.kind === 'leads' ? `/lists/${list.id}` : `/company-lists/${list.id}`}
						className="font-medium text-indigo-700 hover:underline"
					>
						{list.name}
					</Link>
					{hasWorkspaces && list.workspaceId === null ? (
						<span className="ml-2" data-testid="unassigned">
							<Badge>Unassigned</Badge>
						</span>
					) : null}
					<span className="block text-xs font-normal text-slate-500">
						{list.kind === 'leads' ? 'Leads' : 'Companies'} · {list.source}
					</span>
					{list.error && !isCancelled(list.status, list.error) ? (
						<span className="mt-1 block text-xs font-normal text-red-700">{list.error}</span>
					) : null}
				</>
			),
		},
		{
			key: 'status',
			label: 'Status',
			sortable: true,
			cell: (list) => <JobStatusBadge status={list.status} error={list.error} />,
		},
		{
			key: 'progress',
			label: 'Progress',
			cell: (list) => <ProgressBar value={list.progress} label={`Progress of ${list.name}`} />,
		},
		{
			key: 'requested',
			label: 'Requested',
			sortable: true,
			align: 'right',
			cell: (list) => list.requested.toLocaleString('en'),
		},
		{
			key: 'found',
			label: 'Found',
			sortable: true,
			align: 'right',
			cell: (list) => <span data-testid="found">{list.found.toLocaleString('en')}</span>,
		},
		{
			key: 'created',
			label: 'Created',
			sortable: true,
			nowrap: true,
			cell: (list) => <LocalTime value={list.createdAt} locale={locale} />,
		},
		{
			key: 'actions',
			label: 'Actions',
			hideable: false,
			cell: (list) => <RowActions list={list} formKey={formKey} />,
		},
	]
	const actions = [
		{ value: 'export', label: 'Export CSV' },
		...enrichTargets,
		...workspaces.map((w) => ({ value: `move:${w.id}`, label: `Move to ${w.name}` })),
		{ value: 'delete', label: 'Delete' },
	]
	return (
		<>
			<TableFilter id="lists-q" label="Filter lists" q={q} sort={sort} />
			<DataTable
				label="Scrapes"
				testId="lists"
				columns={columns}
				rows={rows}
				rowKey={(list) => list.id}
				rowProps={(list) => ({ id: `list-${list.id}`, 'data-testid': 'scrape-row' })}
				sort={sort}
				preferences={preferences}
				selection={{ formId: LISTS_BULK_FORM, rowLabel: (list) => list.name }}
				toolbar={
					<BulkToolbar
						formId={LISTS_BULK_FORM}
						formKey={formKey}
						actions={actions}
						matching={rows.length}
						filter={q ? { q, workspace: workspaceId } : { workspace: workspaceId }}
						lastResult={bulkResult}
						noun="lists"
					>
						{enrichTargets.length ? (
							<Select
								id={`${LISTS_BULK_FORM}-pay`}
								name="payWith"
								label="Enrich paying with"
								defaultValue={payWith}
								options={[
									{ value: 'credits', label: 'Credits' },
									{ value: 'ownKey', label: 'My own key' },
								]}
							/>
						) : null}
					</BulkToolbar>
				}
			/>
		</>
	)
}
