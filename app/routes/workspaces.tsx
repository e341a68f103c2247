import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { parseWithZod } from '../utils/form-bounds.ts'
import { Layers } from 'lucide-react'
import { data, Form, useLocation, useNavigation } from 'react-router'
import type { Route } from './+types/workspaces'
import { Badge } from '../components/ui/choice.tsx'
import { buttonClasses, SubmitButton } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { ConfirmDialog } from '../components/ui/dialog.tsx'
import { EmptyState } from '../components/ui/empty-state.tsx'
import { Field, FormErrors } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import { actingAccount } from '../services/workspaces/access.server.ts'
import { createWorkspace } from '../services/workspaces/create-workspace.server.ts'
import { deleteWorkspace } from '../services/workspaces/delete-workspace.server.ts'
import { listWorkspaces } from '../services/workspaces/list-workspaces.server.ts'
import { renameWorkspace } from '../services/workspaces/rename-workspace.server.ts'
import {
	CreateWorkspaceSchema,
	RenameWorkspaceSchema,
	WorkspaceActionSchema,
} from '../services/workspaces/schemas.ts'
import { formErrorReply } from '../utils/form-errors.server.ts'
import { useIsPending } from '../utils/forms.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

export async function loader({ context }: Route.LoaderArgs) {
	const { account, currentWorkspaceId } = context.get(requestContext)
	const { workspaces, canManage } = await listWorkspaces(actingAccount(account))
	return { workspaces, canManage, currentWorkspaceId }
}

const INTENTS = ['create', 'rename', 'delete'] as const

export async function action({ request, context }: Route.ActionArgs) {
	const account = actingAccount(context.get(requestContext).account)
	const formData = await readFormData(request)
	const submission = parseWithZod(formData, { schema: WorkspaceActionSchema })
	const intent = INTENTS.find((i) => i === formData.get('intent')) ?? 'create'
	const workspaceId = String(formData.get('workspaceId') ?? '')
	if (submission.status !== 'success') {
		return data({ intent, workspaceId, result: submission.reply() }, { status: 400 })
	}
	const value = submission.value
	try {
		if (value.intent === 'create') {
			const workspace = await createWorkspace(account, { name: value.name })
			return redirectWithSuccess('/workspaces', `Workspace “${workspace.name}” created`)
		}
		if (value.intent === 'rename') {
			const workspace = await renameWorkspace(account, value.workspaceId, { name: value.name })
			return redirectWithSuccess('/workspaces', `Workspace renamed to “${workspace.name}”`)
		}
		const workspace = await deleteWorkspace(account, value.workspaceId)
		return redirectWithSuccess('/workspaces', `Workspace “${workspace.name}” deleted`)
	} catch (error) {
		return formErrorReply(error, submission, { intent, workspaceId })
	}
}

type ActionData = Route.ComponentProps['actionData']

function useRowPending(intent: string, workspaceId: string) {
	const navigation = useNavigation()
	return (
		navigation.state !== 'idle' &&
		navigation.formData?.get('intent') === intent &&
		navigation.formData?.get('workspaceId') === workspaceId
	)
}

function CreateWorkspaceForm({ actionData }: { actionData: ActionData }) {
	const creating = useIsPending('create')
	const [form, fields] = useForm({
		id: 'create-workspace',
		lastResult: actionData?.intent === 'create' ? actionData.result : undefined,
		constraint: getZodConstraint(CreateWorkspaceSchema),
		onValidate: ({ formData }) => parseWithZod(formData, { schema: CreateWorkspaceSchema }),
		shouldRevalidate: 'onInput',
	})
	return (
		<Card>
			<h2 className="text-lg font-semibold">New workspace</h2>
			<Form
				method="post"
				className="mt-4 flex flex-col gap-4 sm:flex-row sm:items-start"
				{...getFormProps(form)}
			>
				<input type="hidden" name="intent" value="create" />
				<FormErrors id={form.errorId} errors={form.errors} />
				<Field
					className="flex-1"
					label="Name"
					hint="For example the client or campaign it is for."
					errors={fields.name.errors}
					inputProps={{ ...getInputProps(fields.name, { type: 'text' }), autoComplete: 'off' }}
				/>
				<SubmitButton className="sm:mt-6" pending={creating} pendingText="Creating…">
					Create workspace
				</SubmitButton>
			</Form>
		</Card>
	)
}

function WorkspaceRow({
	workspace,
	isCurrent,
	canManage,
	actionData,
}: {
	workspace: Route.ComponentProps['loaderData']['workspaces'][number]
	isCurrent: boolean
	canManage: boolean
	actionData: ActionData
}) {
	const location = useLocation()
	const mine = actionData?.workspaceId === workspace.id
	const renaming = useRowPending('rename', workspace.id)
	const deleting = useRowPending('delete', workspace.id)
	const [renameForm, renameFields] = useForm({
		id: `rename-${workspace.id}`,
		lastResult: mine && actionData?.intent === 'rename' ? actionData.result : undefined,
		constraint: getZodConstraint(RenameWorkspaceSchema),
		defaultValue: { name: workspace.name },
		onValidate: ({ formData }) => parseWithZod(formData, { schema: RenameWorkspaceSchema }),
		shouldRevalidate: 'onInput',
	})
	// the confirm dialog's form posts plainly; a refusal (a workspace not empty) is read from the
	// answer at once, so that the dialog opens again with it
	const deleteErrors =
		mine && actionData?.intent === 'delete' ? (actionData.result.error?.[''] ?? null) : null
	const renameFailed = Boolean(renameForm.errors?.length || renameFields.name.errors?.length)
	return (
		<li className="py-4" data-testid="workspace">
			<div className="flex flex-wrap items-start justify-between gap-3">
				<div className="min-w-0">
					<p className="flex flex-wrap items-center gap-2 font-semibold text-slate-900">
						<span className="break-words">{workspace.name}</span>
						{isCurrent ? <Badge tone="indigo">Current</Badge> : null}
					</p>
					<p className="mt-0.5 text-sm text-slate-600">
						{workspace.summary ? `Holds ${workspace.summary}` : 'Empty'}
					</p>
				</div>
				{isCurrent ? null : (
					<Form method="post" action="/workspaces/switch">
						<input type="hidden" name="workspaceId" value={workspace.id} />
						<input type="hidden" name="redirectTo" value={location.pathname + location.search} />
						<button type="submit" className={buttonClasses('secondary', 'px-3 py-1.5')}>
							Switch to<span className="sr-only"> {workspace.name}</span>
						</button>
					</Form>
				)}
			</div>
			{canManage ? (
				<div className="mt-3 flex flex-wrap gap-3">
					<details
						className="group w-full sm:w-auto sm:open:w-full"
						open={renameFailed || undefined}
					>
						<summary className="cursor-pointer text-sm font-semibold text-indigo-700 hover:underline">
							Rename<span className="sr-only"> {workspace.name}</span>
						</summary>
						<Form method="post" className="mt-2 space-y-3" {...getFormProps(renameForm)}>
							<input type="hidden" name="intent" value="rename" />
							<input type="hidden" name="workspaceId" value={workspace.id} />
							<FormErrors id={renameForm.errorId} errors={renameForm.errors} />
							<Field
								label="New name"
								errors={renameFields.name.errors}
								inputProps={{
									...getInputProps(renameFields.name, { type: 'text' }),
									autoComplete: 'off',
								}}
							/>
							<SubmitButton pending={renaming} pendingText="Saving…">
								Save name
							</SubmitButton>
						</Form>
					</details>
					<ConfirmDialog
						trigger={
							<>
								Delete<span className="sr-only"> {workspace.name}</span>
							</>
						}
						title={`Delete “${workspace.name}”?`}
						description="Only an empty workspace can be deleted. Members keep access to the others."
						confirmLabel={`Delete “${workspace.name}”`}
						fields={{ intent: 'delete', workspaceId: workspace.id }}
						defaultOpen={Boolean(deleteErrors?.length)}
						pending={deleting}
						testId="delete-workspace"
					>
						<FormErrors id={`delete-${workspace.id}-errors`} errors={deleteErrors} />
					</ConfirmDialog>
				</div>
			) : null}
		</li>
	)
}

export default function Workspaces({ loaderData, actionData }: Route.ComponentProps) {
	const { workspaces, canManage, currentWorkspaceId } = loaderData
	return (
		<>
			<PageHeader
				title="Workspaces"
				icon={<Layers />}
				description="Keep each client’s lists, domains and inboxes apart. Switch between them at the top of every page."
			/>
			<div className="grid max-w-3xl grid-cols-1 gap-6">
				{canManage ? <CreateWorkspaceForm actionData={actionData} /> : null}
				<Card>
					<h2 className="text-lg font-semibold">
						{canManage ? 'Your workspaces' : 'Workspaces you can use'}
					</h2>
					{canManage ? null : (
						<p className="mt-1 text-sm text-slate-600">
							Only the account owner and team admins can create, rename or delete workspaces.
						</p>
					)}
					{workspaces.length === 0 ? (
						<EmptyState className="mt-4 shadow-none" icon={<Layers />} title="No workspaces yet">
							{canManage
								? 'Create the first one above: lists, domains and inbox orders go into a workspace.'
								: 'Ask the account owner or an admin to give you access to a workspace.'}
						</EmptyState>
					) : (
						<ul className="mt-2 divide-y divide-slate-200">
							{workspaces.map((workspace) => (
								<WorkspaceRow
									key={workspace.id}
									workspace={workspace}
									isCurrent={workspace.id === currentWorkspaceId}
									canManage={canManage}
									actionData={actionData}
								/>
							))}
						</ul>
					)}
				</Card>
			</div>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Workspaces')
