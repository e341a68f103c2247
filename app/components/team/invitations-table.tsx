import type { SubmissionResult } from '@conform-to/react'
import { ROLE_LABELS } from '../../services/team/schemas.ts'
import { BulkToolbar } from '../ui/bulk-toolbar.tsx'
import { Badge } from '../ui/choice.tsx'
import { DataTable, type RowColumn, type TablePreferencesView } from '../ui/data-table.tsx'
import { FormErrors } from '../ui/field.tsx'
import type { TeamActionData } from './invite-form.tsx'
import { describeAccess, describeScopes, RowAction, type Entry } from './team-rows.tsx'

export const INVITATIONS_BULK_FORM = 'invitations-bulk'

/** A row's Resend and Revoke, and what a refused one (e.g. the hourly limit) answered. */
function RowActions({ entry, actionData }: { entry: Entry; actionData: TeamActionData }) {
	const mine =
		actionData?.memberId === entry.id &&
		(actionData.intent === 'resend' || actionData.intent === 'revoke')
	const errors = mine ? (actionData.result.error?.[''] ?? null) : null
	return (
		<div className="flex flex-col items-end gap-1">
			<div className="flex justify-end gap-2">
				<RowAction intent="resend" entry={entry} label="Resend" pendingText="Sending…" />
				<RowAction intent="revoke" entry={entry} label="Revoke" pendingText="Revoking…" />
			</div>
			<div className="empty:hidden">
				<FormErrors errors={errors} />
			</div>
		</div>
	)
}

/** The pending invitations (issue 34): DataTable v2, bulk resend and revoke. */
export function InvitationsTable({
	rows,
	preferences,
	formKey,
	actionData,
}: {
	rows: Entry[]
	preferences: TablePreferencesView
	formKey: string
	actionData: TeamActionData
}) {
	const columns: RowColumn<Entry>[] = [
		{
			key: 'email',
			label: 'Email',
			rowHeader: true,
			cell: (e) => <span className="break-all">{e.email}</span>,
		},
		{
			key: 'role',
			label: 'Role',
			cell: (e) => (
				<Badge tone={e.role === 'admin' ? 'indigo' : 'slate'}>{ROLE_LABELS[e.role]}</Badge>
			),
		},
		{
			key: 'access',
			label: 'Access',
			cell: (e) => `${describeAccess(e)} · ${describeScopes(e)}`,
		},
		{
			key: 'expires',
			label: 'Expires',
			nowrap: true,
			cell: (e) => <Badge tone={e.expired ? 'amber' : 'slate'}>{e.dateLabel}</Badge>,
		},
		{
			key: 'actions',
			label: 'Actions',
			srOnlyLabel: true,
			hideable: false,
			nowrap: true,
			sticky: true,
			align: 'right',
			cell: (e) => <RowActions entry={e} actionData={actionData} />,
		},
	]
	const bulkResult =
		actionData && 'intent' in actionData && actionData.intent === 'bulk' ? actionData.result : null
	return (
		<DataTable
			label="Pending invitations"
			testId="invitations"
			columns={columns}
			rows={rows}
			rowKey={(e) => e.id}
			rowProps={() => ({ 'data-testid': 'invitation' })}
			preferences={preferences}
			selection={{ formId: INVITATIONS_BULK_FORM, rowLabel: (e) => e.email }}
			toolbar={
				<BulkToolbar
					formId={INVITATIONS_BULK_FORM}
					formKey={formKey}
					actions={[
						{ value: 'resend', label: 'Resend' },
						{ value: 'revoke', label: 'Revoke' },
					]}
					matching={rows.length}
					filter={{}}
					lastResult={bulkResult as SubmissionResult<string[]> | null}
					noun="invitations"
				/>
			}
		/>
	)
}
