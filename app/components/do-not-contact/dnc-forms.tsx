import { getFormProps, getInputProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { SubmitButton } from '../ui/button.tsx'
import { Card } from '../ui/card.tsx'
import { Choice } from '../ui/choice.tsx'
import { Field, FormErrors } from '../ui/field.tsx'
import { FileDropZone } from '../ui/file-drop-zone.tsx'
import { Select } from '../ui/select.tsx'
import { AddEntrySchema, DNC_REASONS } from '../../services/do-not-contact/schemas.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { useIsPending } from '../../utils/forms.ts'

export type ScopeOption = { value: string; label: string }

export type DncImportOutcome = {
	read: number
	added: number
	already: number
	invalid: number
	errors: { line: number; message: string }[]
}

const REASON_OPTIONS = Object.entries(DNC_REASONS).map(([value, label]) => ({ value, label }))

/** One email or domain. A free mail domain comes back with a box to tick and submit again. */
export function AddEntryForm({
	scopes,
	defaultScope,
	lastResult,
}: {
	scopes: ScopeOption[]
	defaultScope: string
	lastResult: SubmissionResult<string[]> | undefined
}) {
	const adding = useIsPending('add')
	const [form, fields] = useForm({
		id: 'add-entry',
		lastResult,
		constraint: getZodConstraint(AddEntrySchema),
		defaultValue: { reason: 'manual', scope: defaultScope },
		onValidate: ({ formData }) => parseWithZod(formData, { schema: AddEntrySchema }),
		shouldValidate: 'onSubmit',
		shouldRevalidate: 'onInput',
	})
	// the server's question, not the live errors: ticking the box revalidates on input, which
	// clears the field's error and would take the box away before it is submitted
	const confirmErrors = lastResult?.error?.confirmFreeMail
	return (
		<Card>
			<h2 className="text-lg font-semibold">Add an email or a domain</h2>
			<Form method="post" className="mt-4 space-y-4" {...getFormProps(form)}>
				<input type="hidden" name="intent" value="add" />
				<FormErrors id={form.errorId} errors={form.errors} />
				<div className="grid gap-4 sm:grid-cols-3">
					<Field
						label="Email or domain"
						hint="A domain covers its subdomains."
						errors={fields.value.errors}
						inputProps={{
							...getInputProps(fields.value, { type: 'text' }),
							autoComplete: 'off',
							placeholder: 'jane@client.com or competitor.com',
						}}
					/>
					<Select
						id={fields.reason.id}
						name={fields.reason.name}
						label="Reason"
						options={REASON_OPTIONS}
						defaultValue={fields.reason.initialValue ?? 'manual'}
						errors={fields.reason.errors}
					/>
					<Select
						id={fields.scope.id}
						name={fields.scope.name}
						label="Applies to"
						options={scopes}
						defaultValue={fields.scope.initialValue ?? defaultScope}
						errors={fields.scope.errors}
					/>
				</div>
				{confirmErrors?.length ? (
					<div role="alert" className="rounded-md bg-amber-50 p-3 ring-1 ring-amber-200">
						<Choice
							label="Yes, block this whole free mail domain"
							description={confirmErrors.join(' ')}
							inputProps={{
								...getInputProps(fields.confirmFreeMail, { type: 'checkbox' }),
								value: 'on',
							}}
						/>
					</div>
				) : null}
				<SubmitButton pending={adding} pendingText="Adding…">
					Add to do not contact
				</SubmitButton>
			</Form>
		</Card>
	)
}

/**
 * A CSV of emails and domains, one a line (first column). The text fields come before the
 * file: the server reads them first and then streams the file straight into the database.
 */
export function ImportEntriesForm({
	scopes,
	defaultScope,
	errors,
	outcome,
}: {
	scopes: ScopeOption[]
	defaultScope: string
	errors: Record<string, string[] | null | undefined> | undefined
	outcome: DncImportOutcome | null
}) {
	const importing = useIsPending('import')
	return (
		<Card>
			<h2 className="text-lg font-semibold">Import a CSV</h2>
			<Form
				method="post"
				encType="multipart/form-data"
				className="mt-4 space-y-4"
				id="import-entries"
			>
				<input type="hidden" name="intent" value="import" />
				<FormErrors errors={errors?.['']} />
				<div className="grid gap-4 sm:grid-cols-2">
					<Select
						id="import-reason"
						name="reason"
						label="Reason"
						options={REASON_OPTIONS}
						defaultValue="unsubscribed"
						errors={errors?.reason}
					/>
					<Select
						id="import-scope"
						name="scope"
						label="Applies to"
						options={scopes}
						defaultValue={defaultScope}
						errors={errors?.scope}
					/>
				</div>
				<Choice
					label="Include free mail domains"
					description="Lines such as gmail.com block everyone there; without this box they are refused."
					inputProps={{ id: 'import-allow-free-mail', name: 'allowFreeMail', type: 'checkbox' }}
				/>
				<FileDropZone
					id="import-file"
					name="file"
					label="CSV file"
					accept=".csv,text/csv,text/plain"
					hint="Emails and domains in the first column, one a line; a header is skipped."
					errors={errors?.file}
				/>
				<SubmitButton pending={importing} pendingText="Importing…">
					Import
				</SubmitButton>
			</Form>
			{outcome ? <ImportReport outcome={outcome} /> : null}
		</Card>
	)
}

function ImportReport({ outcome }: { outcome: DncImportOutcome }) {
	const n = (v: number) => v.toLocaleString('en')
	return (
		<div className="mt-4 text-sm" role="status" data-testid="dnc-import-report">
			<p>
				{n(outcome.added)} added, {n(outcome.already)} already on the list, {n(outcome.invalid)}{' '}
				line{outcome.invalid === 1 ? '' : 's'} refused (of {n(outcome.read)}).
			</p>
			{outcome.errors.length ? (
				<ul className="mt-2 max-h-64 space-y-0.5 overflow-auto text-red-700">
					{outcome.errors.map((e) => (
						<li key={e.line}>
							Line {e.line}: {e.message}
						</li>
					))}
					{outcome.invalid > outcome.errors.length ? (
						<li>…and {n(outcome.invalid - outcome.errors.length)} more</li>
					) : null}
				</ul>
			) : null}
		</div>
	)
}
