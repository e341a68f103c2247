import {
	getFormProps,
	getInputProps,
	getSelectProps,
	getTextareaProps,
	useForm,
} from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { parseWithZod } from '../utils/form-bounds.ts'
import { useState } from 'react'
import { data, Form, Link } from 'react-router'
import type { z } from 'zod'
import type { Route } from './+types/create-companies'
import { IdempotencyKey } from '../components/idempotency-key.tsx'
import { Choice, ChoiceGroup } from '../components/ui/choice.tsx'
import { SubmitButton } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { ErrorList, Field, FormErrors, inputClasses, SelectField } from '../components/ui/field.tsx'
import { getConfig } from '../config.server.ts'
import { requestContext } from '../context.server.ts'
import { newFormKey } from '../services/idempotency/form-submissions.server.ts'
import { startListOnce } from '../services/lists/start-list.server.ts'
import { createCompanyScrape } from '../services/companies/create-company-scrape.server.ts'
import { CreateCompaniesSchema } from '../services/companies/schemas.ts'
import { actingAccount } from '../services/workspaces/access.server.ts'
import { useIsPending } from '../utils/forms.ts'
import { useHydrated } from '../utils/use-hydrated.ts'
import { FormError } from '../utils/http-errors.server.ts'
import { formErrorReply } from '../utils/form-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { readFormData } from '../utils/form-data.server.ts'

export async function loader({ context }: Route.LoaderArgs) {
	const { account, currentWorkspaceId } = context.get(requestContext)
	const acting = actingAccount(account)
	const config = getConfig()
	return {
		workspaces: acting.workspaces,
		currentWorkspaceId,
		hasApolloKey: acting.apiKeyProviders.includes('apollo'),
		hasApifyKey: acting.apiKeyProviders.includes('apify'),
		creditsPerCompany: config.CREDITS_PER_COMPANY,
		creditBalance: acting.creditBalance,
		formKey: newFormKey(),
	}
}

export async function action({ request, context }: Route.ActionArgs) {
	const { account, currentWorkspaceId } = context.get(requestContext)
	const formData = await readFormData(request)
	const submission = parseWithZod(formData, { schema: CreateCompaniesSchema })
	if (submission.status !== 'success') return data({ result: submission.reply() }, { status: 400 })
	const value = submission.value
	try {
		const csv = value.file && value.file.size > 0 ? await value.file.text() : undefined
		if (csv !== undefined && csv.includes('\uFFFD'))
			throw new FormError('Save the file as UTF-8 CSV and try again', 'file')
		// sent twice (double click, back and again): one list, one hold, one job
		return await startListOnce(
			account,
			formData,
			'create-companies',
			(trx) =>
				createCompanyScrape(
					account,
					{
						name: value.name,
						workspaceId: value.workspaceId ?? currentWorkspaceId,
						source: value.source,
						domainsText: value.domains,
						csv,
						url: value.url,
						count: value.count,
						payWith: value.payWith,
					},
					trx,
				),
			`“${value.name}” is on its way: we are looking up the companies`,
		)
	} catch (error) {
		return formErrorReply(error, submission)
	}
}

export default function CreateCompanies({ loaderData, actionData }: Route.ComponentProps) {
	const { workspaces, currentWorkspaceId } = loaderData
	const creating = useIsPending()
	const [form, fields] = useForm<z.input<typeof CreateCompaniesSchema>>({
		id: 'create-companies',
		lastResult: actionData?.result,
		constraint: getZodConstraint(CreateCompaniesSchema),
		defaultValue: {
			source: 'domains',
			payWith: loaderData.hasApolloKey ? 'apolloKey' : 'credits',
			workspaceId: currentWorkspaceId ?? undefined,
			count: '100',
		},
		onValidate: ({ formData }) => parseWithZod(formData, { schema: CreateCompaniesSchema }),
		shouldRevalidate: 'onInput',
	})
	const [source, setSource] = useState(String(fields.source.initialValue ?? 'domains'))
	// Without JavaScript both parts of the form show; the chosen source decides.
	const hydrated = useHydrated()
	const hide = (which: string) => hydrated && source !== which
	return (
		<>
			<PageHeader
				title="Create companies"
				description="Build a company list from domains you already have, or from an Apollo company search."
			/>
			<Card className="max-w-3xl">
				<Form
					method="post"
					encType="multipart/form-data"
					className="space-y-5"
					{...getFormProps(form)}
				>
					<input type="hidden" name="intent" value="create" />
					<IdempotencyKey value={loaderData.formKey} />
					<FormErrors id={form.errorId} errors={form.errors} />
					<ChoiceGroup
						legend="Companies from"
						errors={fields.source.errors}
						errorId={fields.source.errorId}
					>
						<Choice
							label="Domains"
							description="Paste them or upload a CSV; we look each one up in Apollo."
							inputProps={{
								...getInputProps(fields.source, { type: 'radio', value: 'domains' }),
								id: 'source-domains',
								onChange: () => setSource('domains'),
							}}
						/>
						<Choice
							label="An Apollo company search"
							description="Run through Apify, like lead searches."
							inputProps={{
								...getInputProps(fields.source, { type: 'radio', value: 'apollo' }),
								id: 'source-apollo',
								onChange: () => setSource('apollo'),
							}}
						/>
					</ChoiceGroup>

					<fieldset className="space-y-4" hidden={hide('domains')}>
						<legend className="sr-only">Domains</legend>
						<div>
							<label
								htmlFor={fields.domains.id}
								className="block text-sm font-medium text-slate-800"
							>
								Company domains
							</label>
							<textarea
								{...getTextareaProps(fields.domains)}
								rows={6}
								placeholder={'acme.com\nhttps://www.beta.io\ngamma.dev'}
								className={`mt-1 ${inputClasses}`}
							/>
							<p className="mt-1 text-sm text-slate-600">
								One a line, or separated by commas or spaces. Up to 50,000.
							</p>
							<ErrorList id={fields.domains.errorId} errors={fields.domains.errors} />
						</div>
						<Field
							label="Or a CSV file"
							hint="A column named domain or website (else the first column). UTF-8, at most 1 MB."
							errors={fields.file.errors}
							inputProps={{
								...getInputProps(fields.file, { type: 'file' }),
								accept: '.csv,text/csv',
								className: 'py-1.5',
							}}
						/>
					</fieldset>

					<fieldset className="space-y-4" hidden={hide('apollo')}>
						<legend className="sr-only">Apollo company search</legend>
						<Field
							label="Apollo company search"
							errors={fields.url.errors}
							inputProps={{
								...getInputProps(fields.url, { type: 'url' }),
								placeholder: 'https://app.apollo.io/#/companies?organizationLocations[]=France',
							}}
						/>
						<Field
							label="How many companies"
							hint="1 to 50,000"
							errors={fields.count.errors}
							inputProps={getInputProps(fields.count, { type: 'number' })}
						/>
					</fieldset>

					<Field
						label="List name"
						errors={fields.name.errors}
						inputProps={getInputProps(fields.name, { type: 'text' })}
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
					<ChoiceGroup
						legend="Pay with"
						errors={fields.payWith.errors}
						errorId={fields.payWith.errorId}
					>
						<Choice
							label="My Apollo key (domains)"
							description={
								loaderData.hasApolloKey ? (
									'Apollo bills your account.'
								) : (
									<>
										Add it on the{' '}
										<Link to="/api-keys" className="text-indigo-700 underline">
											API keys
										</Link>{' '}
										page first.
									</>
								)
							}
							inputProps={{
								...getInputProps(fields.payWith, { type: 'radio', value: 'apolloKey' }),
								id: 'pay-apollo',
							}}
						/>
						<Choice
							label="My Apify key (Apollo search)"
							description={
								loaderData.hasApifyKey
									? 'Apify bills your account.'
									: 'Add it on the API keys page first.'
							}
							inputProps={{
								...getInputProps(fields.payWith, { type: 'radio', value: 'apifyKey' }),
								id: 'pay-apify',
							}}
						/>
						<Choice
							label="Credits"
							description={`${loaderData.creditsPerCompany} credit${loaderData.creditsPerCompany === 1 ? '' : 's'} a company found · you have ${loaderData.creditBalance.toLocaleString('en')}. Unused credits come back.`}
							inputProps={{
								...getInputProps(fields.payWith, { type: 'radio', value: 'credits' }),
								id: 'pay-credits',
							}}
						/>
					</ChoiceGroup>
					<SubmitButton pending={creating} pendingText="Starting…">
						Create company list
					</SubmitButton>
				</Form>
			</Card>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Create companies')
