import type { ServerRouteHandle } from '../server/route-handles.server.ts'
import { useEffect } from 'react'
import {
	getFormProps,
	getInputProps,
	getSelectProps,
	useForm,
	type SubmissionResult,
} from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { parseWithZod } from '../utils/form-bounds.ts'
import { data, Form, Link, redirect, useRevalidator } from 'react-router'
import { z } from 'zod'
import type { Route } from './+types/file-list'
import { IdempotencyKey } from '../components/idempotency-key.tsx'
import { newFormKey, oncePerSubmission } from '../services/idempotency/form-submissions.server.ts'
import { ConfirmDelete } from '../components/lists/confirm-delete.tsx'
import { isRunning, JobStatusBadge, ProgressBar } from '../components/lists/job-status.tsx'
import { buttonClasses, SubmitButton } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { Choice } from '../components/ui/choice.tsx'
import { ErrorList, Field, FormErrors, inputClasses } from '../components/ui/field.tsx'
import { getConfig } from '../config.server.ts'
import { requestContext } from '../context.server.ts'
import {
	columnOptionLabel,
	formatBytes,
	LEAD_FIELDS,
	mappingStep,
	MappingSchema,
	uploadSchema,
} from '../services/imports/mapping.ts'
import { startCsvImport } from '../services/imports/start-import.server.ts'
import { listUploadedFiles } from '../services/imports/uploaded-files.server.ts'
import { readCsvUploadRequest } from '../services/imports/upload-request.server.ts'
import { discardPendingUpload, readPendingUpload } from '../services/imports/uploads.server.ts'
import { deleteLeadList } from '../services/lists/manage-list.server.ts'
import { actingAccount } from '../services/workspaces/access.server.ts'
import { useIsPending } from '../utils/forms.ts'
import { FormError, replyWithFormError, statusOf } from '../utils/http-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'
import { ScrollRegion } from '../components/ui/scroll-region.tsx'

// CSV files are larger than any form: the upload limit, not the body limit
export const handle: ServerRouteHandle = { bodyLimit: 'upload' }

export async function loader({ request, context }: Route.LoaderArgs) {
	const { account, currentWorkspaceId } = context.get(requestContext)
	const acting = actingAccount(account)
	const files = await listUploadedFiles(acting, currentWorkspaceId)
	const uploadId = new URL(request.url).searchParams.get('upload')
	let upload = null
	let uploadGone = false
	if (uploadId) {
		try {
			const pending = await readPendingUpload(acting.accountId, uploadId)
			upload = {
				id: pending.id,
				fileName: pending.fileName,
				size: pending.size,
				records: pending.records,
				name: pending.fileName.replace(/\.(csv|txt|tsv)$/i, ''),
				step: mappingStep(pending.head),
			}
		} catch (error) {
			if (statusOf(error) !== 404) throw error
			uploadGone = true
		}
	}
	return {
		files,
		upload,
		uploadGone,
		uploadLimit: getConfig().UPLOAD_LIMIT_BYTES,
		workspaces: acting.workspaces,
		currentWorkspaceId,
		formKey: newFormKey(),
	}
}

const UploadFieldsSchema = z.object({ intent: z.literal('upload') })
const ListActionSchema = z.object({
	intent: z.enum(['discard', 'delete']),
	uploadId: z.string().optional(),
	listId: z.string().optional(),
})

export async function action({ request, context }: Route.ActionArgs) {
	const { account, currentWorkspaceId } = context.get(requestContext)
	const acting = actingAccount(account)
	const contentType = request.headers.get('content-type') ?? ''
	if (contentType.startsWith('multipart/form-data')) {
		// Streamed to disk and checked as it arrives; the file never sits in memory.
		const { fields, upload, rejected } = await readCsvUploadRequest(request, acting.accountId)
		const formData = new FormData()
		formData.set('intent', fields.intent ?? 'upload')
		const submission = parseWithZod(formData, { schema: UploadFieldsSchema })
		if (!upload) {
			return data(
				{
					intent: 'upload' as const,
					result: submission.reply({
						fieldErrors: { file: [rejected?.message ?? 'Choose a CSV file'] },
					}),
				},
				{ status: rejected?.status ?? 400 },
			)
		}
		throw redirect(`/file-list?upload=${upload.id}`)
	}

	const formData = await readFormData(request)
	if (formData.get('intent') === 'import') {
		const submission = parseWithZod(formData, { schema: MappingSchema })
		if (submission.status !== 'success') {
			return data({ intent: 'import' as const, result: submission.reply() }, { status: 400 })
		}
		try {
			// confirmed twice (or three times at once): one list, one job, the same answer
			const done = await oncePerSubmission(
				{ accountId: acting.accountId, form: 'import', formData },
				async (trx) => {
					const { listId } = await startCsvImport(acting, submission.value, currentWorkspaceId, trx)
					return {
						to: `/lists/${listId}`,
						message: `Importing “${submission.value.name}”: the rows appear as they are read`,
					}
				},
			)
			return redirectWithSuccess(done.to, done.message)
		} catch (error) {
			if (!(error instanceof FormError)) throw error
			return data(
				{ intent: 'import' as const, result: replyWithFormError(submission, error) },
				{ status: 400 },
			)
		}
	}
	const parsed = ListActionSchema.safeParse(Object.fromEntries(formData))
	if (!parsed.success) throw data('Unknown action', { status: 400 })
	if (parsed.data.intent === 'discard') {
		await discardPendingUpload(acting.accountId, parsed.data.uploadId).catch((error: unknown) => {
			if (statusOf(error) !== 404) throw error
		})
		return redirect('/file-list')
	}
	const list = await deleteLeadList(acting, parsed.data.listId)
	return redirectWithSuccess('/file-list', `“${list.name}” deleted`)
}

export default function FileList({ loaderData, actionData }: Route.ComponentProps) {
	const { files, upload } = loaderData
	const revalidator = useRevalidator()
	const running = files.some((f) => isRunning(f.status))
	// Live progress with JavaScript; without it, a reload shows the same.
	useEffect(() => {
		if (!running) return
		const timer = setInterval(() => {
			if (revalidator.state === 'idle' && document.visibilityState === 'visible')
				void revalidator.revalidate()
		}, 2000)
		return () => clearInterval(timer)
	}, [running, revalidator])

	return (
		<>
			<PageHeader
				title="File list"
				description="Import leads from a CSV file, and download any list as CSV."
			/>
			<div className="space-y-6">
				{upload ? (
					<MappingCard
						key={upload.id}
						upload={upload}
						workspaces={loaderData.workspaces}
						currentWorkspaceId={loaderData.currentWorkspaceId}
						formKey={loaderData.formKey}
						lastResult={actionData?.intent === 'import' ? actionData.result : undefined}
					/>
				) : (
					<UploadCard
						limit={loaderData.uploadLimit}
						gone={loaderData.uploadGone}
						lastResult={actionData?.intent === 'upload' ? actionData.result : undefined}
					/>
				)}
				<FilesTable files={files} />
			</div>
		</>
	)
}

type LastResult = SubmissionResult<string[]> | null | undefined

function UploadCard({
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
				UTF-8 CSV with a column of email addresses, up to 1,000,000 rows and {formatBytes(limit)}.
				Next you choose which column is which.
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
					label="CSV file"
					errors={fields.file.errors}
					inputProps={{
						...getInputProps(fields.file, { type: 'file' }),
						accept: '.csv,.tsv,.txt,text/csv,text/plain',
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

type UploadStep = NonNullable<Route.ComponentProps['loaderData']['upload']>

function MappingCard({
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
		keepExtra: 'on',
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
				{rows.toLocaleString('en')} {rows === 1 ? 'row' : 'rows'} · {formatBytes(upload.size)}. We
				guessed the columns from their headers; check them, then import.
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

type FileRow = Route.ComponentProps['loaderData']['files'][number]

function FilesTable({ files }: { files: FileRow[] }) {
	if (files.length === 0) {
		return (
			<Card>
				<p className="text-slate-700">No files imported in this workspace yet.</p>
			</Card>
		)
	}
	return (
		<ScrollRegion
			className="rounded-lg bg-white shadow-sm ring-1 ring-slate-200"
			label="Imported files"
		>
			<table className="min-w-full divide-y divide-slate-200 text-sm">
				<caption className="sr-only">Imported files</caption>
				<thead className="bg-slate-50 text-left text-xs font-semibold tracking-wide text-slate-600 uppercase">
					<tr>
						<th scope="col" className="px-4 py-3">
							List
						</th>
						<th scope="col" className="px-4 py-3 text-right">
							Rows
						</th>
						<th scope="col" className="px-4 py-3 text-right">
							Imported
						</th>
						<th scope="col" className="px-4 py-3 text-right">
							Size
						</th>
						<th scope="col" className="px-4 py-3">
							Created
						</th>
						<th scope="col" className="px-4 py-3">
							Status
						</th>
						<th scope="col" className="px-4 py-3">
							Actions
						</th>
					</tr>
				</thead>
				<tbody className="divide-y divide-slate-100 bg-white">
					{files.map((file) => (
						<tr key={file.id} data-testid="file-row">
							<td className="px-4 py-3">
								<Link
									to={`/lists/${file.id}`}
									className="font-medium text-indigo-700 hover:underline"
								>
									{file.name}
								</Link>
								{file.fileName && file.fileName !== file.name ? (
									<span className="block text-xs text-slate-500">{file.fileName}</span>
								) : null}
								{file.error ? (
									<span className="mt-1 block text-xs text-red-700">{file.error}</span>
								) : null}
							</td>
							<td className="px-4 py-3 text-right tabular-nums">
								{file.rows.toLocaleString('en')}
							</td>
							<td className="px-4 py-3 text-right tabular-nums" data-testid="imported">
								{file.imported.toLocaleString('en')}
								{file.invalid + file.duplicates > 0 ? (
									<span className="block text-xs text-amber-800">
										{(file.invalid + file.duplicates).toLocaleString('en')} skipped
									</span>
								) : null}
							</td>
							<td className="px-4 py-3 text-right whitespace-nowrap tabular-nums">
								{file.fileSize === null ? '' : formatBytes(file.fileSize)}
							</td>
							<td className="px-4 py-3 whitespace-nowrap text-slate-600">
								{new Date(file.createdAt).toLocaleString('en', {
									dateStyle: 'medium',
									timeStyle: 'short',
								})}
							</td>
							<td className="space-y-1 px-4 py-3">
								<JobStatusBadge status={file.status} />
								{isRunning(file.status) ? (
									<ProgressBar value={file.progress} label={`Progress of ${file.name}`} />
								) : null}
							</td>
							<td className="px-4 py-3">
								<div className="flex flex-wrap gap-x-3 gap-y-1">
									{file.status === 2 ? (
										<a
											href={`/lists/${file.id}/download`}
											className="font-medium text-indigo-700 hover:underline"
											download
										>
											Download CSV
										</a>
									) : null}
									<Link
										to={`/lists/${file.id}/import-report`}
										className="font-medium text-indigo-700 hover:underline"
									>
										Import report
									</Link>
									<ConfirmDelete
										name={file.name}
										consequence={`“${file.name}” is deleted with its ${file.imported.toLocaleString('en')} leads.`}
										fields={{ intent: 'delete', listId: file.id }}
									/>
								</div>
							</td>
						</tr>
					))}
				</tbody>
			</table>
		</ScrollRegion>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'File list')
