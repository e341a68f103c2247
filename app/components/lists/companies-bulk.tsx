import type { SubmissionResult } from '@conform-to/react'
import { BulkToolbar } from '../ui/bulk-toolbar.tsx'

/** The form the companies' checkboxes belong to (their `form` attribute). */
export const COMPANIES_BULK_FORM = 'companies-bulk'

/**
 * A company list page's bulk form (decision 0101): delete the ticked companies (or all matching
 * the search), or download them as CSV.
 */
export function CompaniesBulkToolbar({
	formKey,
	matching,
	q,
	lastResult,
}: {
	formKey: string
	matching: number
	q: string
	lastResult?: SubmissionResult<string[]> | null
}) {
	return (
		<BulkToolbar
			formId={COMPANIES_BULK_FORM}
			formKey={formKey}
			actions={[
				{ value: 'export', label: 'Export CSV' },
				{ value: 'delete', label: 'Delete' },
			]}
			matching={matching}
			filter={q ? { q } : {}}
			lastResult={lastResult}
			noun="companies"
		/>
	)
}
