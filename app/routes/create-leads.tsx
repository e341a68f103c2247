import { getFormProps, getInputProps, getSelectProps, useForm } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { parseWithZod } from '../utils/form-bounds.ts'
import { useState } from 'react'
import { data, Form, Link, useSearchParams } from 'react-router'
import type { z } from 'zod'
import type { Route } from './+types/create-leads'
import { IdempotencyKey } from '../components/idempotency-key.tsx'
import { FilterSummary, SavedTemplates } from '../components/lists/url-templates.tsx'
import { Choice, ChoiceGroup } from '../components/ui/choice.tsx'
import { buttonClasses, SubmitButton } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { Field, FormErrors, inputClasses, SelectField } from '../components/ui/field.tsx'
import { getConfig } from '../config.server.ts'
import { requestContext } from '../context.server.ts'
import { newFormKey } from '../services/idempotency/form-submissions.server.ts'
import { startListOnce } from '../services/lists/start-list.server.ts'
import { fillTemplate, parseApolloUrl } from '../services/leads/apollo-url.ts'
import { createLeadScrape } from '../services/leads/create-lead-scrape.server.ts'
import {
	CreateLeadsSchema,
	DeleteTemplateSchema,
	PreviewSearchSchema,
	SaveTemplateSchema,
} from '../services/leads/schemas.ts'
import {
	deleteUrlTemplate,
	findUrlTemplate,
	listUrlTemplates,
	saveUrlTemplate,
} from '../services/leads/url-templates.server.ts'
import { actingAccount } from '../services/workspaces/access.server.ts'
import { useIsPending } from '../utils/forms.ts'
import { formErrorReply } from '../utils/form-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

export async function loader({ request, context }: Route.LoaderArgs) {
	const { account, currentWorkspaceId } = context.get(requestContext)
	const acting = actingAccount(account)
	const config = getConfig()
	const templateId = new URL(request.url).searchParams.get('template')
	const templates = await listUrlTemplates(acting)
	return {
		templates,
		template: templateId ? await findUrlTemplate(acting, templateId) : null,
		workspaces: acting.workspaces,
		currentWorkspaceId,
		hasApifyKey: acting.apiKeyProviders.includes('apify'),
		creditsAvailable: Boolean(config.APIFY_TOKEN),
		creditsPerLead: config.CREDITS_PER_LEAD,
		creditBalance: acting.creditBalance,
		formKey: newFormKey(),
	}
}

const INTENTS = ['create', 'preview', 'save-template', 'delete-template'] as const

export async function action({ request, context }: Route.ActionArgs) {
	const { account, currentWorkspaceId } = context.get(requestContext)
	const formData = await readFormData(request)
	const intent = INTENTS.find((i) => i === formData.get('intent')) ?? 'create'

	if (intent === 'preview') {
		const submission = parseWithZod(formData, { schema: PreviewSearchSchema })
		if (submission.status !== 'success')
			return data({ intent, result: submission.reply(), filters: null }, { status: 400 })
		const parsed = parseApolloUrl(submission.value.url)
		if (!parsed.ok) {
			return data(
				{
					intent,
					result: submission.reply({ fieldErrors: { url: [parsed.error] } }),
					filters: null,
				},
				{ status: 400 },
			)
		}
		return data({ intent, result: submission.reply(), filters: parsed.search.filters })
	}

	if (intent === 'save-template') {
		const submission = parseWithZod(formData, { schema: SaveTemplateSchema })
		if (submission.status !== 'success')
			return data({ intent, result: submission.reply(), filters: null }, { status: 400 })
		try {
			const saved = await saveUrlTemplate(account, {
				name: submission.value.templateName,
				url: submission.value.templateUrl,
			})
			return redirectWithSuccess(
				`/create-leads?template=${saved.id}`,
				`Template “${saved.name}” saved`,
			)
		} catch (error) {
			return formErrorReply(error, submission, { intent, filters: null })
		}
	}

	if (intent === 'delete-template') {
		const submission = parseWithZod(formData, { schema: DeleteTemplateSchema })
		if (submission.status !== 'success')
			return data({ intent, result: submission.reply(), filters: null }, { status: 400 })
		const deleted = await deleteUrlTemplate(account, submission.value.templateId)
		return redirectWithSuccess('/create-leads', `Template “${deleted.name}” deleted`)
	}

	const submission = parseWithZod(formData, { schema: CreateLeadsSchema })
	if (submission.status !== 'success')
		return data({ intent, result: submission.reply(), filters: null }, { status: 400 })
	const value = submission.value
	try {
		let url = value.url ?? ''
		if (value.templateId) {
			const template = await findUrlTemplate(account, value.templateId)
			url = fillTemplate(template.url, value.fill ?? {})
		}
		// sent twice (double click, back and again): one list, one hold, one job
		return await startListOnce(
			account,
			formData,
			'create-leads',
			(trx) =>
				createLeadScrape(
					account,
					{
						name: value.name,
						count: value.count,
						payWith: value.payWith,
						url,
						workspaceId: value.workspaceId ?? currentWorkspaceId,
					},
					trx,
				),
			`“${value.name}” is on its way: we are scraping your leads`,
		)
	} catch (error) {
		return formErrorReply(error, submission, { intent, filters: null })
	}
}

export default function CreateLeads({ loaderData, actionData }: Route.ComponentProps) {
	const { template, templates, workspaces, currentWorkspaceId } = loaderData
	const [searchParams] = useSearchParams()
	const creating = useIsPending('create')
	const [form, fields] = useForm<z.input<typeof CreateLeadsSchema>>({
		id: template ? `create-leads-${template.id}` : 'create-leads',
		lastResult:
			actionData?.intent === 'create' || actionData?.intent === 'preview'
				? actionData.result
				: undefined,
		constraint: getZodConstraint(CreateLeadsSchema),
		defaultValue: {
			count: '100',
			payWith: loaderData.hasApifyKey ? 'apifyKey' : 'credits',
			workspaceId: currentWorkspaceId ?? undefined,
		},
		onValidate: ({ formData }) =>
			parseWithZod(formData, {
				// the "Check the search" button only needs the address
				schema:
					formData.get('intent') === 'preview'
						? (PreviewSearchSchema as unknown as typeof CreateLeadsSchema)
						: CreateLeadsSchema,
			}),
		shouldRevalidate: 'onInput',
	})
	const [url, setUrl] = useState('')
	const [count, setCount] = useState(100)
	const live = url ? parseApolloUrl(url) : null
	const filters = live?.ok ? live.search.filters : actionData?.filters
	const fill = fields.fill.getFieldset()

	return (
		<>
			<PageHeader
				title="Create leads"
				description="Turn an Apollo people search into a lead list. We run the search through Apify and keep every lead with an email."
			/>
			<div className="grid gap-6 xl:grid-cols-3">
				<Card className="xl:col-span-2">
					{templates.length > 0 ? (
						<Form method="get" className="mb-6 flex flex-wrap items-end gap-3">
							<div className="min-w-56 flex-1">
								<label htmlFor="template" className="block text-sm font-medium text-slate-800">
									Start from
								</label>
								<select
									id="template"
									name="template"
									defaultValue={searchParams.get('template') ?? ''}
									className={`mt-1 ${inputClasses}`}
								>
									<option value="">A pasted search address</option>
									{templates.map((t) => (
										<option key={t.id} value={t.id}>
											{t.name}
											{t.global ? ' (shared)' : ''}
										</option>
									))}
								</select>
							</div>
							<button type="submit" className={buttonClasses('secondary')}>
								Use
							</button>
						</Form>
					) : null}

					<Form method="post" className="space-y-5" {...getFormProps(form)}>
						<FormErrors id={form.errorId} errors={form.errors} />
						{template ? (
							<fieldset className="space-y-4">
								<legend className="text-sm font-medium text-slate-800">
									Template “{template.name}”
								</legend>
								<input type="hidden" name="templateId" value={template.id} />
								{template.placeholders.map((name) => (
									<Field
										key={name}
										label={name}
										errors={fill[name]?.errors}
										inputProps={{ ...getInputProps(fill[name]!, { type: 'text' }), required: true }}
									/>
								))}
							</fieldset>
						) : (
							<div>
								<Field
									label="Apollo people search"
									hint="Set your filters in Apollo's People search, then copy the address from the browser."
									errors={fields.url.errors}
									inputProps={{
										...getInputProps(fields.url, { type: 'url' }),
										placeholder: 'https://app.apollo.io/#/people?personTitles[]=ceo',
										onChange: (e) => setUrl(e.currentTarget.value),
									}}
								/>
								{filters?.length ? <FilterSummary filters={filters} /> : null}
								<button
									type="submit"
									name="intent"
									value="preview"
									formNoValidate
									className={`mt-2 ${buttonClasses('ghost', 'px-2 py-1')}`}
								>
									Check the search
								</button>
							</div>
						)}
						<Field
							label="List name"
							errors={fields.name.errors}
							inputProps={getInputProps(fields.name, { type: 'text' })}
						/>
						<div className="grid gap-5 sm:grid-cols-2">
							<Field
								label="How many leads"
								hint="1 to 50,000"
								errors={fields.count.errors}
								inputProps={{
									...getInputProps(fields.count, { type: 'number' }),
									onChange: (e) => setCount(Number(e.currentTarget.value) || 0),
								}}
							/>
							{workspaces.length > 0 ? (
								<SelectField
									label="Workspace"
									errors={fields.workspaceId.errors}
									errorId={fields.workspaceId.errorId}
									selectProps={getSelectProps(fields.workspaceId)}
									options={workspaces}
								/>
							) : null}
						</div>
						<ChoiceGroup
							legend="Pay with"
							errors={fields.payWith.errors}
							errorId={fields.payWith.errorId}
						>
							<Choice
								label="My Apify key"
								description={
									loaderData.hasApifyKey ? (
										'Apify bills your account; no credits used.'
									) : (
										<>
											Add your key on the{' '}
											<Link to="/api-keys" className="text-indigo-700 underline">
												API keys
											</Link>{' '}
											page first.
										</>
									)
								}
								inputProps={{
									...getInputProps(fields.payWith, { type: 'radio', value: 'apifyKey' }),
									id: 'pay-apify',
								}}
							/>
							<Choice
								label="Credits"
								description={
									<span data-testid="price">
										{loaderData.creditsPerLead} credit{loaderData.creditsPerLead === 1 ? '' : 's'} a
										lead
										{count > 0
											? ` · ${(count * loaderData.creditsPerLead).toLocaleString('en')} credits for ${count.toLocaleString('en')} leads`
											: ''}{' '}
										· you have {loaderData.creditBalance.toLocaleString('en')}. Unused credits come
										back.
									</span>
								}
								inputProps={{
									...getInputProps(fields.payWith, { type: 'radio', value: 'credits' }),
									id: 'pay-credits',
								}}
							/>
						</ChoiceGroup>
						<IdempotencyKey value={loaderData.formKey} />
						<SubmitButton name="intent" value="create" pending={creating} pendingText="Starting…">
							Create lead list
						</SubmitButton>
					</Form>
				</Card>

				<SavedTemplates
					templates={templates}
					lastResult={actionData?.intent === 'save-template' ? actionData.result : undefined}
				/>
			</div>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Create leads')
