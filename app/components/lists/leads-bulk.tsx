import type { SubmissionResult } from '@conform-to/react'
import { BulkToolbar } from '../ui/bulk-toolbar.tsx'

/** The form the leads' checkboxes belong to (their `form` attribute). */
export const LEADS_BULK_FORM = 'leads-bulk'

/**
 * The list page's bulk form (decision 0089): delete the ticked leads (or all matching the
 * search), move them to another lead list, or download them as CSV.
 */
export function LeadsBulkToolbar({
	formKey,
	targets,
	matching,
	filter,
	lastResult,
}: {
	formKey: string
	targets: { id: string; name: string }[]
	matching: number
	filter: Record<string, string>
	lastResult?: SubmissionResult<string[]> | null
}) {
	const actions = [
		{ value: 'export', label: 'Export CSV' },
		...targets.map((t) => ({ value: `move:${t.id}`, label: `Move to ${t.name}` })),
		{ value: 'delete', label: 'Delete' },
	]
	return (
		<BulkToolbar
			formId={LEADS_BULK_FORM}
			formKey={formKey}
			actions={actions}
			matching={matching}
			filter={Object.fromEntries(Object.entries(filter).filter(([, v]) => v))}
			lastResult={lastResult}
			noun="leads"
		/>
	)
}
