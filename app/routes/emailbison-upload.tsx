import { getFormProps, useForm } from '@conform-to/react'
import { parseWithZod } from '../utils/form-bounds.ts'
import { useState } from 'react'
import { data, Form, Link } from 'react-router'
import type { Route } from './+types/emailbison-upload'
import {
	FIELD_LABELS,
	isRequired,
	PreflightWarning,
	variableSources,
} from '../components/emailbison/upload-fields.tsx'
import {
	leftOutText,
	UploadVerifyChoices,
} from '../components/emailbison/upload-verify-choices.tsx'
import { IdempotencyKey } from '../components/idempotency-key.tsx'
import { buttonClasses, SubmitButton } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { ErrorList, FormErrors, inputClasses } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import { DEFAULT_FIELDS, suggestedVariable } from '../services/emailbison/mapping.ts'
import { EB_FIELDS, StartUploadSchema } from '../services/emailbison/schemas.ts'
import { loadUploadPage } from '../services/emailbison/upload-page.server.ts'
import { UploadExclusions } from '../components/do-not-contact/upload-exclusions.tsx'
import { startEmailBisonUpload, startUploadInput } from '../services/emailbison/uploads.server.ts'
import { newFormKey, oncePerSubmission } from '../services/idempotency/form-submissions.server.ts'
import { findLeadList } from '../services/lists/find-list.server.ts'
import { useIsPending } from '../utils/forms.ts'
import { useHydrated } from '../utils/use-hydrated.ts'
import { formErrorReply } from '../utils/form-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

// Upload a list to EmailBison: choose the EmailBison workspace (a GET form, so it works
// without JavaScript), then the campaign (or a new one) and the mapping, and confirm.

export async function loader({ request, params, context }: Route.LoaderArgs) {
	const page = await loadUploadPage(
		context.get(requestContext).account,
		params.listId,
		new URL(request.url),
	)
	return { ...page, formKey: newFormKey() }
}

export async function action({ request, params, context }: Route.ActionArgs) {
	const { account } = context.get(requestContext)
	const { account: acting, list } = await findLeadList(account, params.listId)
	const formData = await readFormData(request)
	const submission = parseWithZod(formData, { schema: StartUploadSchema })
	if (submission.status !== 'success') return data({ result: submission.reply() }, { status: 400 })
	try {
		// sent twice: one campaign made, one upload, one job (the repeat waits for the first)
		const done = await oncePerSubmission(
			{ accountId: acting.accountId, form: 'emailbison-upload', formData },
			async (trx) => {
				const { total } = await startEmailBisonUpload(
					account,
					list.id,
					startUploadInput(submission.value),
					trx,
				)
				return {
					to: `/uploads?list=${list.id}`,
					message: `Upload started: ${total.toLocaleString('en')} leads to EmailBison`,
				}
			},
		)
		return redirectWithSuccess(done.to, done.message)
	} catch (error) {
		return formErrorReply(error, submission)
	}
}

export default function EmailBisonUpload({ loaderData, actionData }: Route.ComponentProps) {
	const { list, problem, workspaces, workspace, campaigns, sources, history } = loaderData
	const uploading = useIsPending()
	const [form, fields] = useForm({
		id: 'upload',
		lastResult: actionData?.result,
		// catch-all and unknown are left out unless the person keeps them
		defaultValue: { leaveCatchAll: true, leaveUnknown: true, unverified: 'upload' },
		onValidate: ({ formData }) => parseWithZod(formData, { schema: StartUploadSchema }),
		shouldValidate: 'onSubmit',
	})
	const extra = variableSources(sources)
	const preflight = 'preflight' in loaderData ? loaderData.preflight : null
	// the sources chosen for the required fields, so their warnings follow the selects
	const mapping: Record<string, string> =
		'mapping' in loaderData ? loaderData.mapping : { ...DEFAULT_FIELDS }
	const [chosen, setChosen] = useState<Record<string, string>>(() => ({ ...mapping }))
	const hydrated = useHydrated()
	return (
		<>
			<PageHeader
				title={`Upload ${list.name} to EmailBison`}
				description={`${list.found.toLocaleString('en')} leads in this list.`}
				actions={
					<Link to={`/uploads?list=${list.id}`} className={buttonClasses('secondary')}>
						Upload history
					</Link>
				}
			/>
			<div className="grid max-w-3xl grid-cols-1 gap-6">
				{problem ? (
					<Card>
						<p role="alert" className="text-red-700">
							{problem}
						</p>
						<Link
							to="/settings"
							className="mt-2 inline-block font-medium text-indigo-700 underline"
						>
							Open Settings
						</Link>
					</Card>
				) : null}
				{workspaces.length ? (
					<Card>
						<h2 className="text-lg font-semibold">1. EmailBison workspace</h2>
						<Form method="get" className="mt-4 flex flex-wrap items-end gap-3">
							<div className="min-w-64 grow">
								<label htmlFor="workspace" className="block text-sm font-medium text-slate-800">
									Workspace
								</label>
								<select
									id="workspace"
									name="workspace"
									defaultValue={workspace?.id ?? ''}
									required
									className={`mt-1 ${inputClasses}`}
								>
									<option value="" disabled>
										Choose a workspace…
									</option>
									{workspaces.map((w) => (
										<option key={w.id} value={w.id}>
											{w.name}
										</option>
									))}
								</select>
							</div>
							<button type="submit" className={buttonClasses('secondary')}>
								Continue
							</button>
						</Form>
					</Card>
				) : null}
				{workspace && !problem ? (
					<Card>
						<h2 className="text-lg font-semibold">2. Campaign and fields</h2>
						<Form method="post" className="mt-4 space-y-6" {...getFormProps(form)}>
							<input type="hidden" name="intent" value="upload" />
							<IdempotencyKey value={loaderData.formKey} />
							<input type="hidden" name="workspace" value={workspace.id} />
							<FormErrors id={form.errorId} errors={form.errors} />
							<fieldset className="grid gap-3 sm:grid-cols-2">
								<legend className="mb-2 text-sm font-medium text-slate-800">
									Campaign in {workspace.name}
								</legend>
								<div>
									<label htmlFor="campaign" className="block text-sm text-slate-700">
										Campaign
									</label>
									<select
										id="campaign"
										name="campaign"
										defaultValue={campaigns.length ? String(campaigns[0]!.id) : 'new'}
										className={`mt-1 ${inputClasses}`}
										aria-invalid={fields.campaign.errors ? true : undefined}
									>
										{campaigns.map((c) => (
											<option key={c.id} value={c.id}>
												{c.name}
											</option>
										))}
										<option value="new">Create a new campaign…</option>
									</select>
									<ErrorList errors={fields.campaign.errors} />
								</div>
								<div>
									<label htmlFor="newCampaign" className="block text-sm text-slate-700">
										New campaign name (when creating one)
									</label>
									<input
										id="newCampaign"
										name="newCampaign"
										type="text"
										className={`mt-1 ${inputClasses}`}
										aria-invalid={fields.newCampaign.errors ? true : undefined}
									/>
									<ErrorList errors={fields.newCampaign.errors} />
								</div>
							</fieldset>
							<fieldset className="grid gap-3 sm:grid-cols-2">
								<legend className="mb-2 text-sm font-medium text-slate-800">
									EmailBison fields
								</legend>
								{EB_FIELDS.map((field) => {
									const name = `map_${field}` as const
									return (
										<div key={field}>
											<label htmlFor={name} className="block text-sm text-slate-700">
												{FIELD_LABELS[field]}
											</label>
											<select
												id={name}
												name={name}
												defaultValue={mapping[field] ?? DEFAULT_FIELDS[field]}
												onChange={(event) =>
													setChosen((c) => ({ ...c, [field]: event.target.value }))
												}
												className={`mt-1 ${inputClasses}`}
												aria-invalid={fields[name].errors ? true : undefined}
											>
												<option value="">(not sent)</option>
												{sources.map((o) => (
													<option key={o.value} value={o.value}>
														{o.label}
													</option>
												))}
											</select>
											<ErrorList errors={fields[name].errors} />
											{preflight && isRequired(field) ? (
												<PreflightWarning
													field={field}
													source={chosen[field] ?? ''}
													preflight={preflight}
												/>
											) : null}
										</div>
									)
								})}
								{hydrated ? null : (
									// without JavaScript the warnings above are for the sources shown when the
									// page was made: this reloads it with the ones now chosen (nothing is sent)
									<div className="sm:col-span-2">
										<button
											type="submit"
											formMethod="get"
											formNoValidate
											className={buttonClasses('ghost', 'px-2 py-1')}
										>
											Check the fields
										</button>
									</div>
								)}
							</fieldset>
							<fieldset className="space-y-2">
								<legend className="mb-2 text-sm font-medium text-slate-800">
									Custom variables (missing ones are created in EmailBison first; leave a name empty
									to skip)
								</legend>
								{extra.map((o, i) => (
									<div key={o.value} className="grid items-center gap-3 sm:grid-cols-2">
										<input type="hidden" name={`variables[${i}].source`} value={o.value} />
										<label htmlFor={`variable-${i}`} className="text-sm text-slate-700">
											{o.label}
										</label>
										<input
											id={`variable-${i}`}
											name={`variables[${i}].name`}
											type="text"
											defaultValue={
												o.value.startsWith('data:') || o.value === 'linkedin_url'
													? suggestedVariable(o.value)
													: ''
											}
											placeholder="not sent"
											className={inputClasses}
										/>
									</div>
								))}
							</fieldset>
							{'exclusions' in loaderData && loaderData.exclusions ? (
								<UploadExclusions counts={loaderData.exclusions} />
							) : null}
							<UploadVerifyChoices
								listId={list.id}
								counts={loaderData.statusCounts}
								fields={fields}
							/>
							<SubmitButton pending={uploading} pendingText="Starting…">
								Upload to EmailBison
							</SubmitButton>
						</Form>
					</Card>
				) : null}
				{history.length ? (
					<Card>
						<h2 className="text-lg font-semibold">Earlier uploads of this list</h2>
						<ul className="mt-2 space-y-1 text-sm text-slate-700">
							{history.map((u) => (
								<li key={u.id}>
									{new Date(u.createdAt).toLocaleString('en', {
										dateStyle: 'medium',
										timeStyle: 'short',
									})}
									: {u.campaignName} in {u.ebWorkspaceName}, {u.sent.toLocaleString('en')} sent,{' '}
									{u.rejected.toLocaleString('en')} rejected
									{u.leftOut
										? `; ${leftOutText(u.leftOut) ?? 'none left out by email status'}`
										: ''}
								</li>
							))}
						</ul>
					</Card>
				) : null}
			</div>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Upload to EmailBison')
