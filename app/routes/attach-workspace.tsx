import { parseWithZod } from '../utils/form-bounds.ts'
import { data, Link } from 'react-router'
import type { Route } from './+types/attach-workspace'
import { Card, PageHeader } from '../components/ui/card.tsx'
import {
	AttachWorkspaceForm,
	type AttachWorkspaceView,
} from '../components/workspaces/attach-workspace-form.tsx'
import { requestContext } from '../context.server.ts'
import { actingAccount } from '../services/workspaces/access.server.ts'
import {
	findAttachableItem,
	moveToWorkspace,
} from '../services/workspaces/move-to-workspace.server.ts'
import { AttachWorkspaceSchema, moveReturnPath } from '../services/workspaces/schemas.ts'
import { useIsPending } from '../utils/forms.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithInfo, redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

// The attach-workspace modal of SPEC.md section 2. Rows of lists, company lists, domains and
// inbox orders open it as a modal with JavaScript (components/workspaces/move-to-workspace.tsx and move-dialog.tsx,
// which loads and posts here); without JavaScript it is this page:
// /attach-workspace?type=list&id=…&redirectTo=<the page it started from>.

const KIND: Record<string, string> = {
	list: 'lead list',
	'company-list': 'company list',
	domain: 'domain',
	'inbox-order': 'inbox order',
}

function itemParams(request: Request) {
	const params = new URL(request.url).searchParams
	return { type: params.get('type'), id: params.get('id'), redirectTo: params.get('redirectTo') }
}

export async function loader({ request, context }: Route.LoaderArgs) {
	const account = actingAccount(context.get(requestContext).account)
	const { type, id, redirectTo } = itemParams(request)
	const item = await findAttachableItem(account, type, id)
	return {
		item: { ...item, kind: KIND[item.type]! },
		current: account.workspaces.find((w) => w.id === item.workspaceId) ?? null,
		workspaces: account.workspaces,
		back: moveReturnPath(item.type, redirectTo),
	} satisfies AttachWorkspaceView
}

export async function action({ request, context }: Route.ActionArgs) {
	const account = actingAccount(context.get(requestContext).account)
	const { type, id, redirectTo } = itemParams(request)
	const formData = await readFormData(request)
	const submission = parseWithZod(formData, { schema: AttachWorkspaceSchema })
	if (submission.status !== 'success') {
		// still refuse other accounts' items before saying what is missing
		await findAttachableItem(account, type, id)
		return data({ result: submission.reply() }, { status: 400 })
	}
	const { item, workspace, moved } = await moveToWorkspace(
		account,
		type,
		id,
		submission.value.workspaceId,
	)
	// back to the page the move started from (the modal posts from it; the page carries it)
	const back = moveReturnPath(item.type, submission.value.redirectTo, redirectTo)
	if (!moved) return redirectWithInfo(back, `“${item.name}” is already in “${workspace.name}”`)
	return redirectWithSuccess(back, `Moved “${item.name}” to “${workspace.name}”`)
}

export default function AttachWorkspace({ loaderData, actionData }: Route.ComponentProps) {
	const moving = useIsPending()
	return (
		<div className="mx-auto max-w-lg">
			<PageHeader title="Move to a workspace" />
			<Card>
				<h2 className="text-lg font-semibold break-words">{loaderData.item.name}</h2>
				<AttachWorkspaceForm
					view={loaderData}
					formId="attach-workspace"
					lastResult={actionData?.result}
					pending={moving}
					cancel={
						<Link
							to={loaderData.back}
							className="rounded-md px-4 py-2 text-sm font-semibold text-slate-700 hover:bg-slate-100"
						>
							Cancel
						</Link>
					}
				/>
			</Card>
		</div>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Move to a workspace')
