import { getFormProps, getInputProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { parseWithZod } from '../utils/form-bounds.ts'
import { data, Form, Link } from 'react-router'
import type { z } from 'zod'
import type { Route } from './+types/api-keys'
import { ConfirmDelete } from '../components/lists/confirm-delete.tsx'
import { Badge } from '../components/ui/choice.tsx'
import { SubmitButton } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { Field, FormErrors } from '../components/ui/field.tsx'
import { getConfig } from '../config.server.ts'
import { requestContext } from '../context.server.ts'
import {
	canManageApiKeys,
	deleteApiKey,
	listApiKeys,
	saveApiKey,
	testApiKey,
} from '../services/api-keys/api-keys.server.ts'
import {
	KeyActionSchema,
	PROVIDER_LABELS,
	PROVIDERS,
	SaveKeySchema,
	type Provider,
} from '../services/api-keys/schemas.ts'
import { actingAccount } from '../services/workspaces/access.server.ts'
import { useIsPending } from '../utils/forms.ts'
import { formErrorReply } from '../utils/form-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

export async function loader({ context }: Route.LoaderArgs) {
	const account = actingAccount(context.get(requestContext).account)
	const canManage = canManageApiKeys(account)
	if (!canManage) {
		// an editor sees which providers have keys, nothing more
		return { canManage, keys: [], providersWithKeys: account.apiKeyProviders, defaultBaseUrl: '' }
	}
	return {
		canManage,
		keys: await listApiKeys(account),
		providersWithKeys: account.apiKeyProviders,
		defaultBaseUrl: getConfig().OPENAI_BASE_URL,
	}
}

export async function action({ request, context }: Route.ActionArgs) {
	const { account } = context.get(requestContext)
	const formData = await readFormData(request)
	const provider = String(formData.get('provider') ?? '')
	if (formData.get('intent') === 'save') {
		const submission = parseWithZod(formData, { schema: SaveKeySchema })
		if (submission.status !== 'success')
			return data({ provider, result: submission.reply({ hideFields: ['key'] }) }, { status: 400 })
		try {
			await saveApiKey(account, submission.value)
		} catch (error) {
			return formErrorReply(error, submission, { provider }, ['key'])
		}
		// back at the provider's card: on a phone it can be far down the page
		return redirectWithSuccess(
			`/api-keys#provider-${submission.value.provider}`,
			`${PROVIDER_LABELS[submission.value.provider]} key saved. Test it to make sure it works.`,
		)
	}
	const submission = parseWithZod(formData, { schema: KeyActionSchema })
	if (submission.status !== 'success')
		return data({ provider, result: submission.reply() }, { status: 400 })
	const value = submission.value
	try {
		if (value.intent === 'delete') {
			await deleteApiKey(account, value.provider)
			return redirectWithSuccess(
				`/api-keys#provider-${value.provider}`,
				`${PROVIDER_LABELS[value.provider]} key deleted`,
			)
		}
		const message = await testApiKey(account, value.provider)
		return redirectWithSuccess(`/api-keys#provider-${value.provider}`, message)
	} catch (error) {
		return formErrorReply(error, submission, { provider, intent: value.intent })
	}
}

type KeySummary = Route.ComponentProps['loaderData']['keys'][number]

function ProviderCard({
	provider,
	summary,
	defaultBaseUrl,
	lastResult,
	testResult,
}: {
	provider: Provider
	summary: KeySummary | undefined
	defaultBaseUrl: string
	lastResult: SubmissionResult<string[]> | undefined
	testResult: SubmissionResult<string[]> | undefined
}) {
	const saving = useIsPending('save')
	const [form, fields] = useForm<z.input<typeof SaveKeySchema>>({
		id: `key-${provider}`,
		lastResult,
		constraint: getZodConstraint(SaveKeySchema),
		defaultValue: {
			provider,
			baseUrl: summary?.baseUrl ?? (provider === 'openai' ? defaultBaseUrl : undefined),
			label: summary?.label ?? '',
		},
		onValidate: ({ formData }) => parseWithZod(formData, { schema: SaveKeySchema }),
		shouldRevalidate: 'onInput',
	})
	return (
		<Card>
			<div className="flex flex-wrap items-center justify-between gap-2">
				<h2 id={`provider-${provider}`} className="scroll-mt-4 text-lg font-semibold">
					{PROVIDER_LABELS[provider]}
				</h2>
				{summary ? (
					<span className="flex items-center gap-2 text-sm text-slate-700">
						<span data-testid={`last4-${provider}`}>Key ending in …{summary.last4}</span>
						{/* a test that just failed answers 400: the page's data is not read again */}
						{summary.verifiedAt && !testResult?.error?.[''] ? (
							<Badge tone="green">Tested</Badge>
						) : summary.testError || testResult?.error?.[''] ? (
							<Badge tone="red">Failed</Badge>
						) : (
							<Badge tone="amber">Not tested</Badge>
						)}
					</span>
				) : (
					<Badge>No key</Badge>
				)}
			</div>
			{/* the last failed test, until the key passes or is replaced (a fresh failure shows below) */}
			{summary?.testError && !testResult?.error?.[''] ? (
				<p className="mt-1 text-sm text-red-700" data-testid={`test-error-${provider}`}>
					{summary.testError}
				</p>
			) : null}
			{summary?.baseUrl ? (
				<p className="mt-1 text-sm text-slate-600">Base URL: {summary.baseUrl}</p>
			) : null}
			{provider === 'emailbison' ? (
				<p className="mt-1 text-sm text-slate-600">
					Tested against your EmailBison URL on{' '}
					<Link to="/settings" className="underline">
						Settings
					</Link>
					.
				</p>
			) : null}
			{/* a new form once a key is saved, so the typed key does not linger in the field */}
			<Form
				method="post"
				// without JavaScript the answer page opens at this card, not at the top
				action={`/api-keys#provider-${provider}`}
				className="mt-4 space-y-4"
				{...getFormProps(form)}
				key={summary?.last4 ?? 'none'}
			>
				<input type="hidden" name="intent" value="save" />
				<input type="hidden" name="provider" value={provider} />
				<FormErrors id={form.errorId} errors={form.errors} />
				<Field
					label={summary ? 'New key (replaces the saved one)' : 'API key'}
					errors={fields.key.errors}
					inputProps={{
						...getInputProps(fields.key, { type: 'password' }),
						autoComplete: 'off',
					}}
				/>
				{provider === 'openai' ? (
					<Field
						label="Base URL"
						hint="https://api.openai.com/v1, your Azure resource's …/openai/v1, https://openrouter.ai/api/v1, or http://localhost:11434/v1 for Ollama where the server allows private URLs."
						errors={fields.baseUrl.errors}
						inputProps={getInputProps(fields.baseUrl, { type: 'url' })}
					/>
				) : provider === 'reacher' ? (
					<Field
						label="Base URL (optional)"
						hint="Your self-hosted Reacher server, e.g. https://reacher.example.com; leave empty for Reacher's SaaS."
						errors={fields.baseUrl.errors}
						inputProps={getInputProps(fields.baseUrl, { type: 'url' })}
					/>
				) : null}
				<Field
					label="Label (optional)"
					errors={fields.label.errors}
					inputProps={getInputProps(fields.label, { type: 'text' })}
				/>
				<SubmitButton pending={saving} pendingText="Saving…">
					{summary ? 'Replace key' : 'Save key'}
				</SubmitButton>
			</Form>
			{summary ? (
				<div
					id={`key-actions-${provider}`}
					className="mt-4 flex scroll-mt-4 flex-wrap gap-3 border-t border-slate-100 pt-4"
				>
					{/* a failed test answers next to its button */}
					{testResult?.error?.[''] ? (
						<div className="w-full">
							<FormErrors errors={testResult.error['']} />
						</div>
					) : null}
					<Form method="post" action={`/api-keys#key-actions-${provider}`}>
						<input type="hidden" name="intent" value="test" />
						<input type="hidden" name="provider" value={provider} />
						<SubmitButton variant="secondary">Test key</SubmitButton>
					</Form>
					<ConfirmDelete
						name={`${PROVIDER_LABELS[provider]} key`}
						consequence="Runs that would use it then need credits, or a new key."
						fields={{ intent: 'delete', provider }}
					/>
				</div>
			) : null}
		</Card>
	)
}

export default function ApiKeys({ loaderData, actionData }: Route.ComponentProps) {
	if (!loaderData.canManage) {
		return (
			<>
				<PageHeader
					title="API keys"
					description="Only the account owner and team admins can change API keys."
				/>
				<Card className="max-w-2xl">
					<ul className="divide-y divide-slate-100">
						{PROVIDERS.map((provider) => (
							<li key={provider} className="flex justify-between py-2 text-sm">
								<span>{PROVIDER_LABELS[provider]}</span>
								{loaderData.providersWithKeys.includes(provider) ? (
									<Badge tone="green">Key set</Badge>
								) : (
									<Badge>No key</Badge>
								)}
							</li>
						))}
					</ul>
				</Card>
			</>
		)
	}
	return (
		<>
			<PageHeader
				title="API keys"
				description="Your own provider keys: runs that use them cost no credits. Keys are encrypted and never shown again, only their last 4 characters."
			/>
			<div className="grid max-w-3xl grid-cols-1 gap-6">
				{PROVIDERS.map((provider) => (
					<ProviderCard
						key={provider}
						provider={provider}
						summary={loaderData.keys.find((k) => k.provider === provider)}
						defaultBaseUrl={loaderData.defaultBaseUrl}
						lastResult={
							actionData?.provider === provider && !('intent' in actionData)
								? actionData.result
								: undefined
						}
						testResult={
							actionData?.provider === provider && 'intent' in actionData
								? actionData.result
								: undefined
						}
					/>
				))}
			</div>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'API keys')
