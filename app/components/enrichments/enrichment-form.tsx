import { getFormProps, getInputProps, getTextareaProps, useForm } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { Form, Link, useLocation } from 'react-router'
import type { z } from 'zod'
import type { Enrichment, PreviewRow } from '../../services/enrichments/enrichments.server.ts'
import { EnrichmentFormSchema } from '../../services/enrichments/schemas.ts'
import { COMPANY_COLUMNS } from '../../services/enrichments/template.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { useIsPending } from '../../utils/forms.ts'
import { SubmitButton } from '../ui/button.tsx'
import { Card } from '../ui/card.tsx'
import { Choice, ChoiceGroup } from '../ui/choice.tsx'
import { JsonFields } from '../ui/json-fields.tsx'
import { ErrorList, Field, FormErrors, inputClasses } from '../ui/field.tsx'
import type { EnrichmentsActionResult, EnrichmentsPageData } from './enrichments-page.ts'
import { PlaceholderChips } from './placeholder-chips.tsx'
import { TemperatureField, temperatureValue } from './temperature-field.tsx'

// /enrichments' form for a new AI enrichment or the one being edited, with its free preview.

function formatOutput(output: PreviewRow['output']) {
	if (output === null) return ''
	return typeof output === 'string' ? output : <JsonFields value={output} />
}

/** The form's values for a saved enrichment. */
function enrichmentValues(e: Enrichment) {
	return {
		id: e.id,
		name: e.name,
		prompt: e.prompt,
		outputColumn: e.outputColumn,
		outputFormat: e.format.kind,
		outputFields:
			e.format.kind === 'json' ? e.format.fields.map((f) => `${f.name}:${f.type}`).join(', ') : '',
		model: e.model,
		temperature: temperatureValue(e.temperature),
	}
}

export function EnrichmentForm({
	loaderData,
	actionData,
	editing,
}: {
	loaderData: EnrichmentsPageData
	actionData: EnrichmentsActionResult | undefined
	editing: Enrichment | null
}) {
	const location = useLocation()
	const saveIntent = editing ? 'update-enrichment' : 'create-enrichment'
	const saving = useIsPending(saveIntent)
	const previewing = useIsPending('preview')
	const [form, fields] = useForm<z.input<typeof EnrichmentFormSchema>>({
		id: editing ? 'enrichment-edit' : 'enrichment',
		lastResult:
			actionData?.intent === saveIntent || actionData?.intent === 'preview'
				? actionData.result
				: undefined,
		constraint: getZodConstraint(EnrichmentFormSchema),
		defaultValue: {
			outputFormat: 'text',
			model: 'gpt-4o-mini',
			...(editing ? enrichmentValues(editing) : {}),
			listId: loaderData.defaultListId,
		},
		onValidate: ({ formData }) => parseWithZod(formData, { schema: EnrichmentFormSchema }),
		shouldRevalidate: 'onInput',
	})
	return (
		<Card>
			<div className="flex items-baseline justify-between gap-4">
				<h2 id="enrichment-form" className="scroll-mt-4 text-lg font-semibold">
					{editing ? `Edit AI enrichment “${editing.name}”` : 'New AI enrichment'}
				</h2>
				{editing ? (
					<Link to="/enrichments" className="text-sm text-slate-600 underline">
						Cancel editing
					</Link>
				) : null}
			</div>
			{editing ? (
				<p className="mt-1 text-sm text-slate-600">
					Runs already started keep the prompt and settings they started with.
				</p>
			) : null}
			{/* without JavaScript the answer page opens at this form (below the lists on a phone) */}
			<Form
				method="post"
				action={`${location.pathname}${location.search}#enrichment-form`}
				className="mt-4 space-y-4"
				{...getFormProps(form)}
			>
				{editing ? <input type="hidden" name="id" value={editing.id} /> : null}
				<FormErrors id={form.errorId} errors={form.errors} />
				<Field
					label="Name"
					errors={fields.name.errors}
					inputProps={getInputProps(fields.name, { type: 'text' })}
				/>
				<div>
					<label htmlFor={fields.prompt.id} className="block text-sm font-medium text-slate-800">
						Prompt
					</label>
					<textarea
						{...getTextareaProps(fields.prompt)}
						rows={5}
						className={`mt-1 ${inputClasses}`}
						placeholder="What does {{company_name}} sell? Answer in five words."
					/>
					<ErrorList id={fields.prompt.errorId} errors={fields.prompt.errors} />
					<PlaceholderChips
						id={`${fields.prompt.id}-lead-columns`}
						label="Lead columns"
						names={loaderData.columns}
						targetId={fields.prompt.id}
					/>
					<PlaceholderChips
						id={`${fields.prompt.id}-company-columns`}
						label="Company list columns"
						names={COMPANY_COLUMNS}
						targetId={fields.prompt.id}
					/>
				</div>
				<Field
					label="Output column"
					hint="Where the answer goes on each lead, e.g. company_summary."
					errors={fields.outputColumn.errors}
					inputProps={getInputProps(fields.outputColumn, { type: 'text' })}
				/>
				<ChoiceGroup
					legend="Output format"
					errors={fields.outputFormat.errors}
					errorId={fields.outputFormat.errorId}
				>
					<Choice
						label="Text"
						inputProps={{
							...getInputProps(fields.outputFormat, { type: 'radio', value: 'text' }),
							id: `${fields.outputFormat.id}-text`,
						}}
					/>
					<Choice
						label="JSON fields"
						description="The answer is checked against these fields."
						inputProps={{
							...getInputProps(fields.outputFormat, { type: 'radio', value: 'json' }),
							id: `${fields.outputFormat.id}-json`,
						}}
					/>
				</ChoiceGroup>
				<Field
					label="JSON fields (for JSON output)"
					hint="name:type pairs, e.g. industry:string, employees:number, b2b:boolean"
					errors={fields.outputFields.errors}
					inputProps={getInputProps(fields.outputFields, { type: 'text' })}
				/>
				<div className="grid gap-4 sm:grid-cols-2">
					<Field
						label="Model"
						errors={fields.model.errors}
						inputProps={getInputProps(fields.model, { type: 'text' })}
					/>
					<TemperatureField field={fields.temperature} />
				</div>
				<div>
					<label htmlFor={fields.listId.id} className="block text-sm font-medium text-slate-800">
						Preview on 5 rows of
					</label>
					<select
						id={fields.listId.id}
						name={fields.listId.name}
						defaultValue={loaderData.defaultListId}
						className={`mt-1 ${inputClasses}`}
					>
						<option value="">Choose a list</option>
						{(['leads', 'companies'] as const).map((kind) => {
							const lists = loaderData.lists.filter((l) => l.kind === kind)
							return lists.length > 0 ? (
								<optgroup key={kind} label={kind === 'leads' ? 'Lead lists' : 'Company lists'}>
									{lists.map((l) => (
										<option key={l.id} value={l.id}>
											{l.name} ({l.found} {kind})
										</option>
									))}
								</optgroup>
							) : null
						})}
					</select>
					<ErrorList id={fields.listId.errorId} errors={fields.listId.errors} />
				</div>
				<div className="flex flex-wrap gap-3">
					<SubmitButton
						name="intent"
						value="preview"
						variant="secondary"
						pending={previewing}
						pendingText="Previewing…"
					>
						Preview on 5 rows
					</SubmitButton>
					<SubmitButton name="intent" value={saveIntent} pending={saving} pendingText="Saving…">
						{editing ? 'Save changes' : 'Save enrichment'}
					</SubmitButton>
				</div>
			</Form>
			{actionData?.preview ? (
				<div className="mt-6" data-testid="preview">
					<h3 className="font-semibold">Preview (free, nothing is written)</h3>
					<div
						className="relative mt-2 overflow-x-auto focus-visible:outline-2 focus-visible:outline-indigo-600"
						// focusable, so the keyboard can scroll it too
						tabIndex={0}
						role="region"
						aria-label="Preview"
					>
						<table className="w-full text-left text-sm">
							<thead>
								<tr className="text-slate-600">
									<th className="py-1 pr-4">
										{actionData.preview.kind === 'leads' ? 'Lead' : 'Company'}
									</th>
									<th className="min-w-48 py-1 pr-4">Prompt</th>
									<th className="min-w-48 py-1">Answer</th>
								</tr>
							</thead>
							<tbody>
								{actionData.preview.rows.map((row) => (
									<tr key={row.id} className="border-t border-slate-100 align-top">
										<td className="py-1 pr-4">{row.label}</td>
										<td className="py-1 pr-4 text-slate-600">{row.prompt}</td>
										<td className="py-1">
											{row.error ? (
												<span className="text-red-700">{row.error}</span>
											) : (
												formatOutput(row.output)
											)}
										</td>
									</tr>
								))}
							</tbody>
						</table>
					</div>
				</div>
			) : null}
		</Card>
	)
}
