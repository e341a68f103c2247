import type { SubmissionResult } from '@conform-to/react'
import { useLocation } from 'react-router'
import { BulkToolbar } from '../ui/bulk-toolbar.tsx'
import { Badge } from '../ui/choice.tsx'
import { DataTable, type RowColumn, type TablePreferencesView } from '../ui/data-table.tsx'
import { ConfirmDialog } from '../ui/dialog.tsx'
import { MoveToWorkspace } from '../workspaces/move-to-workspace.tsx'

export type OrderRow = {
	id: string
	name: string
	status: string
	total: string
	workspace: string | null
	canMove: boolean
	/** still waiting for setup: the customer may cancel it (and is refunded) */
	cancellable: boolean
}

export const ORDERS_BULK_FORM = 'inbox-orders-bulk'

const TONES = {
	'waiting for setup': 'slate',
	'being set up': 'amber',
	delivered: 'green',
	failed: 'red',
} as const

function RowActions({ row, canChange }: { row: OrderRow; canChange: boolean }) {
	// a refusal comes back to this page: the dialog starts closed again with the answer's toast
	const { key } = useLocation()
	if (!canChange) return null
	return (
		<div className="flex items-center justify-end gap-4">
			{row.canMove ? <MoveToWorkspace type="inbox-order" id={row.id} name={row.name} /> : null}
			{row.cancellable ? (
				<ConfirmDialog
					key={key}
					trigger={
						<>
							Cancel<span className="sr-only"> {row.name}</span>
						</>
					}
					title="Cancel this order?"
					description={`${row.name}: it has not been set up yet, so it is cancelled and its payment refunded.`}
					confirmLabel="Cancel order"
					fields={{ intent: 'cancel-order', id: row.id }}
				/>
			) : null}
		</div>
	)
}

/** The inbox orders of /inboxes (issue 34): DataTable v2 with a bulk cancel. */
export function OrdersTable({
	rows,
	canChange,
	preferences,
	formKey,
	bulkResult,
}: {
	rows: OrderRow[]
	canChange: boolean
	preferences: TablePreferencesView
	formKey: string
	bulkResult?: SubmissionResult<string[]> | null
}) {
	const columns: RowColumn<OrderRow>[] = [
		{ key: 'order', label: 'Order', rowHeader: true, cell: (o) => o.name },
		{
			key: 'status',
			label: 'Status',
			nowrap: true,
			cell: (o) => (
				<Badge tone={TONES[o.status as keyof typeof TONES] ?? 'slate'}>{o.status}</Badge>
			),
		},
		{ key: 'total', label: 'Monthly', nowrap: true, align: 'right', cell: (o) => o.total },
		{
			key: 'workspace',
			label: 'Workspace',
			nowrap: true,
			cell: (o) => <span data-testid="order-workspace">{o.workspace ?? 'Unassigned'}</span>,
		},
		...(canChange
			? [
					{
						key: 'actions',
						label: 'Actions',
						srOnlyLabel: true,
						hideable: false,
						nowrap: true,
						sticky: true,
						align: 'right' as const,
						cell: (o: OrderRow) => <RowActions row={o} canChange={canChange} />,
					},
				]
			: []),
	]
	return (
		<DataTable
			label="Inbox orders"
			testId="inbox-orders"
			columns={columns}
			rows={rows}
			rowKey={(o) => o.id}
			rowProps={() => ({ 'data-testid': 'inbox-order' })}
			preferences={preferences}
			selection={canChange ? { formId: ORDERS_BULK_FORM, rowLabel: (o) => o.name } : undefined}
			toolbar={
				canChange ? (
					<BulkToolbar
						formId={ORDERS_BULK_FORM}
						formKey={formKey}
						actions={[{ value: 'cancel', label: 'Cancel (waiting for setup only)' }]}
						matching={rows.length}
						filter={{}}
						lastResult={bulkResult}
						noun="inbox orders"
					/>
				) : null
			}
		/>
	)
}
