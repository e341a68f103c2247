import { getFormProps, getInputProps, getSelectProps, useForm } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import type { z } from 'zod'
import {
	columnOptionLabel,
	formatBytes,
	LEAD_FIELDS,
	MappingSchema,
	type MappingStep,
} from '../../services/imports/mapping.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { useIsPending } from '../../utils/forms.ts'
import { IdempotencyKey } from '../idempotency-key.tsx'
import { buttonClasses, SubmitButton } from '../ui/button.tsx'
import { Card } from '../ui/card.tsx'
import { Choice } from '../ui/choice.tsx'
import { ErrorList, Field, FormErrors, inputClasses } from '../ui/field.tsx'
import type { LastResult } from './upload-card.tsx'

// /file-list's second step: which column of the uploaded CSV is which lead field, then import.

/** An uploaded CSV waiting for its mapping (/file-list?upload=<id>). */
export type UploadStep = {
	id: string
	fileName: string
	size: number
	records: number
	/** the list's name to start from: the file's, without its extension */
	name: string
	step: MappingStep
}

export function MappingCard({
	upload,
	workspaces,
	currentWorkspaceId,
	formKey,
	lastResult,
}: {
	upload: UploadStep
	workspaces: { id: string; name: string }[]
	currentWorkspaceId: string | null
	formKey: string
	lastResult: LastResult
}) {
	const importing = useIsPending('import')
	const { step } = upload
	const defaultValue: Record<string, string> = {
		name: upload.name,
		hasHeader: step.hasHeader ? 'on' : '',
		keepExtra: step.keepExtra ? 'on' : '',
	}
	if (currentWorkspaceId) defaultValue.workspaceId = currentWorkspaceId
	for (const field of LEAD_FIELDS) {
		const column = step.guess[field.key]
		if (column !== undefined) defaultValue[field.key] = String(column)
	}
	const [form, fields] = useForm<z.input<typeof MappingSchema>>({
		id: `mapping-${upload.id}`,
		lastResult,
		constraint: getZodConstraint(MappingSchema),
		defaultValue,
		onValidate: ({ formData }) => parseWithZod(formData, { schema: MappingSchema }),
		shouldRevalidate: 'onInput',
	})
	const rows = Math.max(0, upload.records - (step.hasHeader ? 1 : 0))
	return (
		<Card>
			<h2 className="text-lg font-semibold">Map the columns of {upload.fileName}</h2>
			<p className="mt-1 text-sm text-slate-600">
				{rows.toLocaleString('en')} {rows === 1 ? 'row' : 'rows'} · {formatBytes(upload.size)}.{' '}
				{step.saved
					? 'Mapped from your saved mapping for files with these headers; check it, then import.'
					: 'We guessed the columns from their headers; check them, then import.'}
			</p>
			<Preview step={step} />
			<Form method="post" className="mt-6 space-y-5" {...getFormProps(form)}>
				<input type="hidden" name="intent" value="import" />
				<input type="hidden" name="uploadId" value={upload.id} />
				<IdempotencyKey value={formKey} />
				<FormErrors id={form.errorId} errors={form.errors} />
				<div className="grid gap-5 sm:grid-cols-2">
					<Field
						label="List name"
						errors={fields.name.errors}
						inputProps={getInputProps(fields.name, { type: 'text' })}
					/>
					{workspaces.length > 0 ? (
						<SelectField label="Workspace" field={selectOf(fields.workspaceId)}>
							{workspaces.map((w) => (
								<option key={w.id} value={w.id}>
									{w.name}
								</option>
							))}
						</SelectField>
					) : null}
				</div>
				<Choice
					label="The first row holds the column names"
					inputProps={getInputProps(fields.hasHeader, { type: 'checkbox' })}
				/>
				<fieldset>
					<legend className="text-sm font-medium text-slate-800">Columns</legend>
					<div className="mt-2 grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
						{LEAD_FIELDS.map((leadField) => (
							<SelectField
								key={leadField.key}
								label={leadField.required ? `${leadField.label} (required)` : leadField.label}
								field={selectOf(fields[leadField.key])}
							>
								<option value="">{leadField.required ? 'Choose a column' : 'Don’t import'}</option>
								{step.columns.map((column) => (
									<option key={column.index} value={column.index}>
										{columnOptionLabel(column)}
									</option>
								))}
							</SelectField>
						))}
					</div>
				</fieldset>
				<Choice
					label="Keep the other columns"
					description="Columns you did not map are kept with each lead under their header, and come back in the CSV download."
					inputProps={getInputProps(fields.keepExtra, { type: 'checkbox' })}
				/>
				<div className="flex flex-wrap items-center gap-3">
					<SubmitButton pending={importing} pendingText="Starting…">
						Import {rows.toLocaleString('en')} {rows === 1 ? 'row' : 'rows'}
					</SubmitButton>
				</div>
			</Form>
			<Form method="post" className="mt-3">
				<input type="hidden" name="intent" value="discard" />
				<input type="hidden" name="uploadId" value={upload.id} />
				<button type="submit" className={buttonClasses('ghost', 'px-2 py-1')}>
					Cancel and upload another file
				</button>
			</Form>
		</Card>
	)
}

function SelectField({
	label,
	field,
	children,
}: {
	label: string
	field: {
		id: string
		errorId: string
		errors?: string[]
		props: ReturnType<typeof getSelectProps>
	}
	children: React.ReactNode
}) {
	const { key, ...props } = field.props
	return (
		<div>
			<label htmlFor={field.id} className="block text-sm font-medium text-slate-800">
				{label}
			</label>
			<select key={key} {...props} className={`mt-1 ${inputClasses}`}>
				{children}
			</select>
			<ErrorList id={field.errorId} errors={field.errors} />
		</div>
	)
}

/** What SelectField needs of a conform field. */
function selectOf(field: Parameters<typeof getSelectProps>[0]) {
	return {
		id: field.id,
		errorId: field.errorId,
		errors: field.errors,
		props: getSelectProps(field),
	}
}

function Preview({ step }: { step: UploadStep['step'] }) {
	if (step.columns.length === 0) return null
	return (
		<div className="mt-4 overflow-x-auto rounded-md ring-1 ring-slate-200">
			<table className="min-w-full divide-y divide-slate-200 text-sm" data-testid="csv-preview">
				<caption className="sr-only">The first rows of the file</caption>
				<thead className="bg-slate-50 text-left text-xs text-slate-600">
					<tr>
						{step.columns.map((column) => (
							<th key={column.index} scope="col" className="px-3 py-2 font-semibold">
								<span className="text-slate-400">{column.letter}</span>{' '}
								{step.hasHeader ? column.header : ''}
							</th>
						))}
					</tr>
				</thead>
				<tbody className="divide-y divide-slate-100 bg-white">
					{step.preview.map((row, r) => (
						<tr key={r}>
							{step.columns.map((column) => (
								<td
									key={column.index}
									className="max-w-48 truncate px-3 py-2 text-slate-700"
									title={row[column.index] ?? undefined}
								>
									{row[column.index] ?? ''}
								</td>
							))}
						</tr>
					))}
				</tbody>
			</table>
		</div>
	)
}
