import { getFormProps, getInputProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import type { z } from 'zod'
import { formatBytes, uploadSchema } from '../../services/imports/mapping.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { useIsPending } from '../../utils/forms.ts'
import { SubmitButton } from '../ui/button.tsx'
import { Card } from '../ui/card.tsx'
import { Field, FormErrors } from '../ui/field.tsx'

// /file-list's first step: upload a CSV file (streamed to disk by the action).

export type LastResult = SubmissionResult<string[]> | null | undefined

export function UploadCard({
	limit,
	gone,
	lastResult,
}: {
	limit: number
	gone: boolean
	lastResult: LastResult
}) {
	const uploading = useIsPending('upload')
	const schema = uploadSchema(limit)
	const [form, fields] = useForm<z.input<typeof schema>>({
		id: 'upload',
		lastResult,
		constraint: getZodConstraint(schema),
		onValidate: ({ formData }) => parseWithZod(formData, { schema }),
		shouldValidate: 'onSubmit',
	})
	return (
		<Card>
			<h2 className="text-lg font-semibold">Import a CSV file</h2>
			<p className="mt-1 text-sm text-slate-600">
				UTF-8 CSV, or an Excel workbook (.xlsx: its first sheet), with a column of email addresses,
				up to 1,000,000 rows and {formatBytes(limit)}. Next you choose which column is which.
			</p>
			{gone ? (
				<p role="status" className="mt-3 text-sm text-amber-800">
					That upload is no longer available. Upload the file again.
				</p>
			) : null}
			<Form
				method="post"
				encType="multipart/form-data"
				className="mt-4 flex flex-wrap items-end gap-4"
				{...getFormProps(form)}
			>
				<input type="hidden" name="intent" value="upload" />
				<FormErrors id={form.errorId} errors={form.errors} />
				<Field
					className="min-w-64 flex-1"
					label="CSV file (or .xlsx)"
					errors={fields.file.errors}
					inputProps={{
						...getInputProps(fields.file, { type: 'file' }),
						accept:
							'.csv,.tsv,.txt,.xlsx,text/csv,text/plain,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
						className: 'file:mr-3 file:rounded file:border-0 file:bg-slate-100 file:px-3 file:py-1',
					}}
				/>
				<SubmitButton pending={uploading} pendingText="Uploading…">
					Upload
				</SubmitButton>
			</Form>
		</Card>
	)
}
