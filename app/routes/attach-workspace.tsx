import { getFormProps, getSelectProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { data, Form, Link } from 'react-router'
import type { Route } from './+types/attach-workspace'
import { SubmitButton } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { FormErrors, SelectField } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import { RedirectToSchema } from '../services/auth/schemas.ts'
import { actingAccount } from '../services/workspaces/access.server.ts'
import {
	findAttachableItem,
	moveToWorkspace,
} from '../services/workspaces/move-to-workspace.server.ts'
import { AttachWorkspaceSchema } from '../services/workspaces/schemas.ts'
import { useIsPending } from '../utils/forms.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithInfo, redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

// The attach-workspace modal of SPEC.md section 2, as a page: /attach-workspace?type=list&id=…
// (type list | company-list | domain | inbox-order; optional redirectTo). Screens that show
// lists, domains or inbox orders link here; it works the same with JavaScript off.

const KIND: Record<string, string> = {
	list: 'lead list',
	'company-list': 'company list',
	domain: 'domain',
	'inbox-order': 'inbox order',
}

function itemParams(request: Request) {
	const url = new URL(request.url)
	return {
		type: url.searchParams.get('type'),
		id: url.searchParams.get('id'),
		redirectTo: RedirectToSchema.parse(url.searchParams.get('redirectTo') ?? undefined) ?? null,
		self: url.pathname + url.search,
	}
}

export async function loader({ request, context }: Route.LoaderArgs) {
	const account = actingAccount(context.get(requestContext).account)
	const { type, id, redirectTo } = itemParams(request)
	const item = await findAttachableItem(account, type, id)
	return {
		item: { ...item, kind: KIND[item.type]! },
		current: account.workspaces.find((w) => w.id === item.workspaceId) ?? null,
		workspaces: account.workspaces,
		redirectTo,
	}
}

export async function action({ request, context }: Route.ActionArgs) {
	const account = actingAccount(context.get(requestContext).account)
	const { type, id, redirectTo, self } = itemParams(request)
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
	const back = submission.value.redirectTo ?? redirectTo ?? self
	if (!moved) return redirectWithInfo(back, `“${item.name}” is already in “${workspace.name}”`)
	return redirectWithSuccess(back, `Moved “${item.name}” to “${workspace.name}”`)
}

export default function AttachWorkspace({ loaderData, actionData }: Route.ComponentProps) {
	const { item, current, workspaces, redirectTo } = loaderData
	const moving = useIsPending()
	const others = workspaces.filter((w) => w.id !== current?.id)
	const [form, fields] = useForm({
		id: 'attach-workspace',
		lastResult: actionData?.result,
		constraint: getZodConstraint(AttachWorkspaceSchema),
		defaultValue: { workspaceId: others[0]?.id },
		onValidate: ({ formData }) => parseWithZod(formData, { schema: AttachWorkspaceSchema }),
	})
	const cancelTo = redirectTo ?? '/workspaces'
	return (
		<div className="mx-auto max-w-lg">
			<PageHeader title="Move to a workspace" />
			<Card>
				<h2 className="text-lg font-semibold break-words">{item.name}</h2>
				<p className="mt-1 text-sm text-slate-600" data-testid="current-workspace">
					This {item.kind} is{' '}
					{current ? (
						<>
							in <span className="font-medium text-slate-900">{current.name}</span>
						</>
					) : (
						'not in any workspace'
					)}
					.
				</p>
				{!item.canMove ? (
					<p className="mt-4 rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200">
						You can view domains and inbox orders but not change them. Ask the account owner for the
						permission to change them.
					</p>
				) : others.length === 0 ? (
					<p className="mt-4 text-sm text-slate-700">
						There is no other workspace to move it to.{' '}
						<Link to="/workspaces" className="font-semibold text-indigo-700 hover:underline">
							Manage workspaces
						</Link>
					</p>
				) : (
					<Form method="post" className="mt-4 space-y-4" {...getFormProps(form)}>
						<FormErrors id={form.errorId} errors={form.errors} />
						{redirectTo ? <input type="hidden" name="redirectTo" value={redirectTo} /> : null}
						<SelectField
							label="Move it to"
							errors={fields.workspaceId.errors}
							errorId={fields.workspaceId.errorId}
							selectProps={getSelectProps(fields.workspaceId)}
							options={others}
						/>
						<div className="flex flex-wrap items-center justify-end gap-3">
							<Link
								to={cancelTo}
								className="rounded-md px-4 py-2 text-sm font-semibold text-slate-700 hover:bg-slate-100"
							>
								Cancel
							</Link>
							<SubmitButton pending={moving} pendingText="Moving…">
								Move
							</SubmitButton>
						</div>
					</Form>
				)}
			</Card>
		</div>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Move to a workspace')
