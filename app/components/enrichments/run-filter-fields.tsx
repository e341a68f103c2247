import { getInputProps, getSelectProps, type useForm } from '@conform-to/react'
import type { z } from 'zod'
import type { RunSchema } from '../../services/enrichments/schemas.ts'
import {
	COMPANY_ROW_CHOICE_LABELS,
	ROW_CHOICE_LABELS,
	ROW_CHOICES,
} from '../../services/enrichments/run-filter.ts'
import { CONDITION_LABELS } from '../../services/enrichments/template.ts'
import { Choice, ChoiceGroup } from '../ui/choice.tsx'
import { ErrorList, Field, inputClasses } from '../ui/field.tsx'
import { ChevronRight } from 'lucide-react'

type RunFormFields = ReturnType<typeof useForm<z.input<typeof RunSchema>>>[1]

/**
 * "Which leads" (or, on a company list, "Which companies") of the run form: search, up to
 * FILTER_SLOTS conditions, and which rows.
 */
export function RunFilterFields({
	fields,
	columns,
	companies = false,
}: {
	fields: RunFormFields
	columns: readonly string[]
	companies?: boolean
}) {
	const slots = fields.where.getFieldList()
	const labels = companies ? COMPANY_ROW_CHOICE_LABELS : ROW_CHOICE_LABELS
	const filter = filterInWords(fields, labels)
	const titleId = `${fields.where.id}-which`
	return (
		// folded until used: open as served when the form holds a filter or an error in it (a
		// filter from the list page's link, a form sent back), so it works without JavaScript
		<details
			className="group rounded-md ring-1 ring-slate-200"
			open={filter.used || undefined}
			data-testid="which-rows"
		>
			<summary className="flex cursor-pointer list-none items-center gap-2 rounded-md px-3 py-2 text-sm focus-visible:outline-2 focus-visible:outline-indigo-600 [&::-webkit-details-marker]:hidden">
				<ChevronRight
					aria-hidden
					className="size-4 shrink-0 text-slate-500 transition-transform group-open:rotate-90"
				/>
				<span id={titleId} className="font-medium text-slate-800">
					{companies ? 'Which companies' : 'Which leads'}
				</span>
				<span className="min-w-0 truncate text-slate-600">{filter.words}</span>
			</summary>
			<fieldset aria-labelledby={titleId} className="space-y-3 px-3 pb-3">
				<p className="text-sm text-slate-600">
					Leave these blank to enrich the whole list. A {companies ? 'company' : 'lead'} is taken
					when every condition holds.
				</p>
				<Field
					label="Search"
					hint={
						companies
							? 'The start of a company name or a domain, as on the list page.'
							: 'The start of an email, a name or a company, as on the list page.'
					}
					errors={fields.q.errors}
					inputProps={getInputProps(fields.q, { type: 'search' })}
				/>
				<ErrorList id={fields.where.errorId} errors={fields.where.errors} />
				{slots.map((slot, index) => {
					const c = slot.getFieldset()
					const column = (c.column.initialValue as string | undefined) ?? ''
					const needsValue = c.op.value === 'equals' || c.op.value === 'contains'
					return (
						<fieldset key={slot.key} className="grid grid-cols-2 gap-2">
							<legend className="mb-1 text-sm font-medium text-slate-800 col-span-2">
								Condition {index + 1}
							</legend>
							<div>
								<label htmlFor={c.column.id} className="block text-sm text-slate-700">
									Column
								</label>
								<select
									{...getSelectProps(c.column)}
									defaultValue={column}
									className={`mt-1 ${inputClasses}`}
								>
									<option value="">(none)</option>
									{columns.map((name) => (
										<option key={name} value={name}>
											{name}
										</option>
									))}
									{/* a column named in the URL that the list lacks stays visible with its error */}
									{column && !columns.includes(column) ? (
										<option value={column}>{column}</option>
									) : null}
								</select>
								<ErrorList id={c.column.errorId} errors={c.column.errors} />
							</div>
							<div>
								<label htmlFor={c.op.id} className="block text-sm text-slate-700">
									Comparison
								</label>
								<select
									{...getSelectProps(c.op)}
									defaultValue={(c.op.initialValue as string | undefined) ?? ''}
									className={`mt-1 ${inputClasses}`}
								>
									<option value="">(choose)</option>
									{Object.entries(CONDITION_LABELS).map(([op, label]) => (
										<option key={op} value={op}>
											{label}
										</option>
									))}
								</select>
								<ErrorList id={c.op.errorId} errors={c.op.errors} />
							</div>
							<div className="col-span-2">
								<label htmlFor={c.value.id} className="block text-sm text-slate-700">
									Value
								</label>
								<input
									{...getInputProps(c.value, { type: 'text' })}
									placeholder={needsValue ? undefined : '(for equals and contains)'}
									className={`mt-1 ${inputClasses}`}
								/>
								<ErrorList id={c.value.errorId} errors={c.value.errors} />
							</div>
						</fieldset>
					)
				})}
				<ChoiceGroup legend="Rows" errors={fields.only.errors} errorId={fields.only.errorId}>
					{ROW_CHOICES.map((choice) => (
						<Choice
							key={choice}
							label={labels[choice].label}
							description={labels[choice].description}
							inputProps={{
								...getInputProps(fields.only, { type: 'radio', value: choice }),
								id: `${fields.only.id}-${choice}`,
							}}
						/>
					))}
				</ChoiceGroup>
			</fieldset>
		</details>
	)
}

/** Whether the form holds a filter (or an error in one), and the filter in a few words. */
function filterInWords(
	fields: RunFormFields,
	labels: typeof ROW_CHOICE_LABELS | typeof COMPANY_ROW_CHOICE_LABELS,
) {
	const q = ((fields.q.initialValue as string | undefined) ?? '').trim()
	const conditions = fields.where
		.getFieldList()
		.filter((slot) =>
			Object.values(slot.getFieldset()).some((f) => Boolean(f.initialValue || f.errors)),
		).length
	const only = (fields.only.initialValue as string | undefined) ?? 'all'
	const errors = [fields.q, fields.where, fields.only].some((f) => f.errors?.length)
	const words = [
		q ? `search “${q}”` : null,
		conditions ? `${conditions} ${conditions === 1 ? 'condition' : 'conditions'}` : null,
		only !== 'all' && only in labels ? labels[only as keyof typeof labels].label : null,
	].filter(Boolean)
	return {
		used: errors || words.length > 0,
		words: words.length ? words.join(' · ') : 'the whole list',
	}
}
