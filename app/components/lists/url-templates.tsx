import { getFormProps, getInputProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { Form, Link } from 'react-router'
import { SubmitButton } from '../ui/button.tsx'
import { Card } from '../ui/card.tsx'
import { Field, FormErrors } from '../ui/field.tsx'
import type { ApolloFilter } from '../../services/leads/apollo-url.ts'
import { SaveTemplateSchema } from '../../services/leads/schemas.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'

// The create-leads page's parts about Apollo search addresses: what a search filters on, and
// the saved address templates with their own form.

/** The filters an Apollo search address sets, as Apollo names them. */
export function FilterSummary({ filters }: { filters: ApolloFilter[] }) {
	return (
		<dl
			className="mt-2 space-y-1 rounded-md bg-slate-50 p-3 text-sm ring-1 ring-slate-200"
			data-testid="search-filters"
		>
			{filters.map((f) => (
				<div key={f.key} className="flex flex-wrap gap-x-2">
					<dt className="font-medium text-slate-700">{f.label}:</dt>
					<dd className="text-slate-900">{f.values.join(', ')}</dd>
				</div>
			))}
		</dl>
	)
}

/** The saved templates (shared ones can't be deleted here) and the form that saves one. */
export function SavedTemplates({
	templates,
	lastResult,
}: {
	templates: { id: string; name: string; global: boolean }[]
	lastResult: SubmissionResult<string[]> | undefined
}) {
	const [templateForm, templateFields] = useForm({
		id: 'save-template',
		lastResult,
		constraint: getZodConstraint(SaveTemplateSchema),
		onValidate: ({ formData }) => parseWithZod(formData, { schema: SaveTemplateSchema }),
		shouldRevalidate: 'onInput',
	})
	return (
		<Card>
			<h2 className="text-lg font-semibold">Saved templates</h2>
			<p className="mt-1 text-sm text-slate-600">
				Save a search address with {'{{placeholders}}'}, e.g.{' '}
				<code className="text-xs">personTitles[]={'{{title}}'}</code>; each becomes a field.
			</p>
			{templates.length ? (
				<ul className="mt-4 divide-y divide-slate-100">
					{templates.map((t) => (
						<li key={t.id} className="flex items-center justify-between gap-2 py-2 text-sm">
							<Link
								to={`/create-leads?template=${t.id}`}
								className="font-medium text-indigo-700 hover:underline"
							>
								{t.name}
							</Link>
							{t.global ? (
								<span className="text-xs text-slate-500">shared</span>
							) : (
								<Form method="post">
									<input type="hidden" name="intent" value="delete-template" />
									<input type="hidden" name="templateId" value={t.id} />
									<button
										type="submit"
										className="text-xs text-red-700 hover:underline"
										aria-label={`Delete template ${t.name}`}
									>
										Delete
									</button>
								</Form>
							)}
						</li>
					))}
				</ul>
			) : null}
			<Form method="post" className="mt-4 space-y-3" {...getFormProps(templateForm)}>
				<input type="hidden" name="intent" value="save-template" />
				<FormErrors id={templateForm.errorId} errors={templateForm.errors} />
				<Field
					label="Template name"
					errors={templateFields.templateName.errors}
					inputProps={getInputProps(templateFields.templateName, { type: 'text' })}
				/>
				<Field
					label="Address with placeholders"
					errors={templateFields.templateUrl.errors}
					inputProps={getInputProps(templateFields.templateUrl, { type: 'text' })}
				/>
				<SubmitButton variant="secondary">Save template</SubmitButton>
			</Form>
		</Card>
	)
}
