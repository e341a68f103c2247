import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { UserRound } from 'lucide-react'
import { data, Form, Link } from 'react-router'
import type { z } from 'zod'
import type { Route } from './+types/lead'
import { buttonClasses, SubmitButton } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { ConfirmDialog } from '../components/ui/dialog.tsx'
import { Field, FormErrors } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import { newFormKey, oncePerSubmission } from '../services/idempotency/form-submissions.server.ts'
import { LEAD_FIELDS } from '../services/imports/mapping.ts'
import { deleteLead, findLead, updateLead } from '../services/lists/lead-edit.server.ts'
import { LeadActionSchema, LeadEditSchema } from '../services/lists/lead-schema.ts'
import { actingAccount } from '../services/workspaces/access.server.ts'
import { parseWithZod } from '../utils/form-bounds.ts'
import { readFormData } from '../utils/form-data.server.ts'
import { formErrorReply } from '../utils/form-errors.server.ts'
import { useIsPending } from '../utils/forms.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'

// One lead of a lead list, reached from the list's table: edit its fields, or delete it.

export async function loader({ params, context }: Route.LoaderArgs) {
	const { list, lead } = await findLead(
		context.get(requestContext).account,
		params.listId,
		params.leadId,
	)
	return {
		list: { id: list.id, name: list.name },
		lead,
		formKey: newFormKey(),
	}
}

export async function action({ request, params, context }: Route.ActionArgs) {
	const account = actingAccount(context.get(requestContext).account)
	const formData = await readFormData(request)
	const submission = parseWithZod(formData, { schema: LeadActionSchema })
	const intent = formData.get('intent') === 'delete' ? 'delete' : 'save'
	if (submission.status !== 'success') {
		return data({ intent, result: submission.reply() }, { status: 400 })
	}
	const listPath = `/lists/${params.listId}`
	try {
		if (submission.value.intent === 'save') {
			const { lead } = await updateLead(account, params.listId, params.leadId, submission.value)
			return redirectWithSuccess(listPath, `Lead ${lead.email} saved`)
		}
		// sent twice (a double click, a retry): deleted once, the same answer
		const done = await oncePerSubmission(
			{ accountId: account.accountId, form: 'delete-lead', formData },
			async (trx) => {
				const { lead } = await deleteLead(account, params.listId, params.leadId, trx)
				return { message: `Lead ${lead.email} deleted` }
			},
		)
		return redirectWithSuccess(listPath, done.message)
	} catch (error) {
		return formErrorReply(error, submission, { intent })
	}
}

export default function Lead({ loaderData, actionData }: Route.ComponentProps) {
	const { list, lead } = loaderData
	const saving = useIsPending('save')
	const deleting = useIsPending('delete')
	const defaultValue: Record<string, string> = {}
	for (const field of LEAD_FIELDS) defaultValue[field.key] = lead[field.key] ?? ''
	const [form, fields] = useForm<z.input<typeof LeadEditSchema>>({
		id: `lead-${lead.id}`,
		lastResult: actionData?.intent === 'save' ? actionData.result : undefined,
		constraint: getZodConstraint(LeadEditSchema),
		defaultValue,
		onValidate: ({ formData }) => parseWithZod(formData, { schema: LeadEditSchema }),
		shouldRevalidate: 'onInput',
	})
	const deleteErrors =
		actionData?.intent === 'delete' ? (actionData.result.error?.[''] ?? null) : null
	const extra = Object.entries(lead.data as Record<string, unknown>)
	return (
		<>
			<PageHeader
				title={lead.email}
				icon={<UserRound />}
				description={
					<>
						A lead of{' '}
						<Link to={`/lists/${list.id}`} className="text-indigo-700 underline">
							{list.name}
						</Link>
					</>
				}
			/>
			<div className="grid max-w-3xl grid-cols-1 gap-6">
				<Card>
					<h2 className="text-lg font-semibold">Edit the lead</h2>
					<Form method="post" className="mt-4 space-y-5" {...getFormProps(form)}>
						<input type="hidden" name="intent" value="save" />
						<FormErrors id={form.errorId} errors={form.errors} />
						<div className="grid gap-4 sm:grid-cols-2">
							{LEAD_FIELDS.map((leadField) => (
								<Field
									key={leadField.key}
									label={leadField.required ? `${leadField.label} (required)` : leadField.label}
									errors={fields[leadField.key].errors}
									inputProps={{
										...getInputProps(fields[leadField.key], {
											type: leadField.key === 'email' ? 'email' : 'text',
										}),
										autoComplete: 'off',
									}}
								/>
							))}
						</div>
						{extra.length ? (
							<dl className="grid gap-x-4 gap-y-1 text-sm sm:grid-cols-[auto_1fr]">
								{extra.map(([key, value]) => (
									<div key={key} className="contents">
										<dt className="font-medium text-slate-700">{key}</dt>
										<dd className="break-words text-slate-600">
											{typeof value === 'string' ? value : JSON.stringify(value)}
										</dd>
									</div>
								))}
							</dl>
						) : null}
						<div className="flex flex-wrap items-center gap-3">
							<SubmitButton pending={saving} pendingText="Saving…">
								Save lead
							</SubmitButton>
							<Link to={`/lists/${list.id}`} className={buttonClasses('ghost')}>
								Back to the list
							</Link>
						</div>
					</Form>
				</Card>
				<Card>
					<h2 className="text-lg font-semibold">Delete the lead</h2>
					<p className="mt-1 text-sm text-slate-600">
						It leaves the list and its count; the rest of the list stays as it is.
					</p>
					<div className="mt-3">
						<ConfirmDialog
							trigger={
								<>
									Delete<span className="sr-only"> {lead.email}</span>
								</>
							}
							title={`Delete ${lead.email}?`}
							description="The lead is removed from this list. This cannot be undone."
							confirmLabel="Delete lead"
							fields={{ intent: 'delete', idempotencyKey: loaderData.formKey }}
							defaultOpen={Boolean(deleteErrors?.length)}
							pending={deleting}
							testId="delete-lead"
						>
							<FormErrors id="delete-lead-errors" errors={deleteErrors} />
						</ConfirmDialog>
					</div>
				</Card>
			</div>
		</>
	)
}

export const meta: Route.MetaFunction = ({ loaderData, matches }) =>
	pageTitle(matches, loaderData?.lead.email ?? 'Lead')
