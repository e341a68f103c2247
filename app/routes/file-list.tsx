import type { ServerRouteHandle } from '../server/route-handles.server.ts'
import { parseWithZod } from '../utils/form-bounds.ts'
import { data, redirect } from 'react-router'
import { z } from 'zod'
import type { Route } from './+types/file-list'
import { FilesTable } from '../components/imports/files-table.tsx'
import { MappingCard } from '../components/imports/mapping-card.tsx'
import { UploadCard } from '../components/imports/upload-card.tsx'
import { newFormKey, oncePerSubmission } from '../services/idempotency/form-submissions.server.ts'
import { isRunning } from '../components/lists/job-status.tsx'
import { PageHeader } from '../components/ui/card.tsx'
import { getConfig } from '../config.server.ts'
import { requestContext } from '../context.server.ts'
import { MappingSchema } from '../services/imports/mapping.ts'
import { mappingStepFor } from '../services/imports/saved-mappings.server.ts'
import { startCsvImport } from '../services/imports/start-import.server.ts'
import { listUploadedFiles } from '../services/imports/uploaded-files.server.ts'
import { readCsvUploadRequest } from '../services/imports/upload-request.server.ts'
import { discardPendingUpload, readPendingUpload } from '../services/imports/uploads.server.ts'
import { deleteLeadList } from '../services/lists/manage-list.server.ts'
import { actingAccount } from '../services/workspaces/access.server.ts'
import { formErrorReply, redirectOnFormError } from '../utils/form-errors.server.ts'
import { statusOf } from '../utils/http-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'
import { useLiveRefresh } from '../utils/use-live-refresh.ts'

// Import leads from a CSV: upload (UploadCard), map its columns (MappingCard), and the
// imported files with their progress (FilesTable), in app/components/imports.

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
				name: pending.fileName.replace(/\.(csv|txt|tsv|xlsx)$/i, ''),
				step: await mappingStepFor(acting.accountId, pending.head),
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
			return formErrorReply(error, submission, { intent: 'import' as const })
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
	try {
		const list = await deleteLeadList(acting, parsed.data.listId)
		return redirectWithSuccess('/file-list', `“${list.name}” deleted`)
	} catch (error) {
		return redirectOnFormError(error, '/file-list')
	}
}

export default function FileList({ loaderData, actionData }: Route.ComponentProps) {
	const { files, upload } = loaderData
	// live progress while an import runs
	useLiveRefresh(
		files.some((f) => isRunning(f.status)),
		2000,
	)

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

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'File list')
