import type { SubmissionResult } from '@conform-to/react'
import type { ReactNode } from 'react'
import { Form } from 'react-router'
import { IdempotencyKey } from '../idempotency-key.tsx'
import { useIsPending } from '../../utils/forms.ts'
import { useHydrated } from '../../utils/use-hydrated.ts'
import { SubmitButton } from './button.tsx'
import { useSelectedCount } from './data-table.tsx'
import { FormErrors } from './field.tsx'
import { Select, type SelectOption } from './select.tsx'

/**
 * The bulk form of a DataTable (decision 0080): an action, whether it applies to the ticked rows
 * (the table's checkboxes belong to this form through their `form` attribute) or to every row
 * matching the page's filter (the filter is sent, not ids), and an idempotency key so a double
 * submit starts one job. Posts `intent=bulk`, `action`, `scope`, `ids`, `filter.<name>`.
 */
export function BulkToolbar({
	formId,
	formKey,
	actions,
	matching,
	filter,
	lastResult,
	noun,
	children,
}: {
	formId: string
	formKey: string
	actions: SelectOption[]
	/** how many rows match the filter (every page) */
	matching: number
	filter: Record<string, string>
	lastResult?: SubmissionResult<string[]> | null
	/** 'domains', 'lists' */
	noun: string
	children?: ReactNode
}) {
	const hydrated = useHydrated()
	const { count } = useSelectedCount(formId)
	// the answer's errors read as they are: no client-side validation here, so no conform hooks
	// (their 4.6 KB gz stay off the pages of a table; issue 34's budget, decision 0101)
	const errors = lastResult?.error ?? {}
	const formErrors = [...(errors[''] ?? []), ...(errors.ids ?? [])]
	const errorId = `${formId}-error`
	const pending = useIsPending('bulk')
	return (
		<Form
			method="post"
			id={formId}
			aria-invalid={formErrors.length ? true : undefined}
			aria-describedby={formErrors.length ? errorId : undefined}
			className="flex flex-wrap items-end gap-3"
			aria-label={`Bulk actions on ${noun}`}
		>
			<input type="hidden" name="intent" value="bulk" />
			<IdempotencyKey value={formKey} />
			{Object.entries(filter).map(([name, value]) => (
				<input key={name} type="hidden" name={`filter.${name}`} value={value} />
			))}
			<Select
				id={`${formId}-action`}
				name="action"
				label="Bulk action"
				options={actions}
				errors={errors.action ?? undefined}
				controlClassName="min-w-52"
			/>
			<fieldset className="text-sm">
				<legend className="sr-only">Apply to</legend>
				<label className="flex items-center gap-2 text-slate-700">
					<input
						type="radio"
						name="scope"
						value="selected"
						defaultChecked
						className="size-4 accent-indigo-700"
					/>
					{hydrated ? (
						<span aria-live="polite" data-testid="selected-count">
							{count} selected
						</span>
					) : (
						'The ticked rows'
					)}
				</label>
				<label className="mt-1 flex items-center gap-2 text-slate-700">
					<input type="radio" name="scope" value="all" className="size-4 accent-indigo-700" />
					All {matching.toLocaleString('en')} {noun} matching this filter
				</label>
			</fieldset>
			{children}
			<SubmitButton variant="secondary" pending={pending} pendingText="Starting…">
				Apply
			</SubmitButton>
			<div className="basis-full empty:hidden">
				<FormErrors id={errorId} errors={formErrors} />
			</div>
		</Form>
	)
}
