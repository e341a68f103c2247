import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { Code2 } from 'lucide-react'
import { data, Form } from 'react-router'
import type { Route } from './+types/developers'
import { DevelopersNav } from '../components/developers/developers-nav.tsx'
import { SubmitButton } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { Choice, ChoiceGroup } from '../components/ui/choice.tsx'
import { ConfirmDialog } from '../components/ui/dialog.tsx'
import { EmptyState } from '../components/ui/empty-state.tsx'
import { Field, FormErrors } from '../components/ui/field.tsx'
import { LocalTime } from '../components/ui/local-time.tsx'
import { requestContext } from '../context.server.ts'
import {
	canManageApiTokens,
	createApiToken,
	listApiTokens,
	revokeApiToken,
} from '../services/api-tokens/api-tokens.server.ts'
import {
	API_FAMILIES,
	ApiTokenActionSchema,
	CreateApiTokenSchema,
} from '../services/api-tokens/scopes.ts'
import { actingAccount } from '../services/workspaces/access.server.ts'
import { parseWithZod } from '../utils/form-bounds.ts'
import { readFormData } from '../utils/form-data.server.ts'
import { formErrorReply } from '../utils/form-errors.server.ts'
import { forbidden } from '../utils/http-errors.server.ts'
import { useIsPending } from '../utils/forms.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'

// API tokens (issue 37): made here by the owner or a team admin, shown once, revoked here.

function manager(account: Parameters<typeof actingAccount>[0]) {
	const acting = actingAccount(account)
	if (!canManageApiTokens(acting)) {
		forbidden('Only the account owner and team admins can manage API tokens.')
	}
	return acting
}

export async function loader({ context }: Route.LoaderArgs) {
	const account = manager(context.get(requestContext).account)
	return { tokens: await listApiTokens(account), workspaces: account.workspaces }
}

export async function action({ request, context }: Route.ActionArgs) {
	const account = manager(context.get(requestContext).account)
	const formData = await readFormData(request)
	const submission = parseWithZod(formData, { schema: ApiTokenActionSchema })
	const intent = formData.get('intent') === 'revoke' ? 'revoke' : 'create'
	if (submission.status !== 'success') {
		return data({ intent, result: submission.reply(), created: null }, { status: 400 })
	}
	const value = submission.value
	try {
		if (value.intent === 'revoke') {
			const token = await revokeApiToken(account, value.tokenId)
			return redirectWithSuccess('/developers', `Token “${token.name}” revoked`)
		}
		const created = await createApiToken(account, value)
		// shown once, in this answer only: never stored, never sent again
		return data({
			intent,
			result: submission.reply({ resetForm: true }),
			created: { name: created.name, token: created.token },
		})
	} catch (error) {
		return formErrorReply(error, submission, { intent, created: null })
	}
}

type LoaderData = Route.ComponentProps['loaderData']
type ActionData = Route.ComponentProps['actionData']

function CreateTokenForm({
	workspaces,
	actionData,
}: {
	workspaces: LoaderData['workspaces']
	actionData: ActionData
}) {
	const pending = useIsPending('create')
	const [form, fields] = useForm({
		id: 'create-token',
		lastResult: actionData?.intent === 'create' ? actionData.result : undefined,
		constraint: getZodConstraint(CreateApiTokenSchema),
		onValidate: ({ formData }) => parseWithZod(formData, { schema: CreateApiTokenSchema }),
		shouldRevalidate: 'onInput',
	})
	return (
		<Card>
			<h2 className="text-lg font-semibold">New API token</h2>
			<Form method="post" className="mt-4 space-y-5" {...getFormProps(form)}>
				<input type="hidden" name="intent" value="create" />
				<FormErrors id={form.errorId} errors={form.errors} />
				<Field
					label="Name"
					hint="What it is for, e.g. “n8n workflow”."
					errors={fields.name.errors}
					inputProps={{ ...getInputProps(fields.name, { type: 'text' }), autoComplete: 'off' }}
				/>
				<ChoiceGroup
					legend="Permissions"
					hint="Write includes read. A token never does more than you may do yourself."
					errors={fields.scopes.errors}
					errorId={fields.scopes.errorId}
				>
					<div className="grid gap-2 sm:grid-cols-2">
						{API_FAMILIES.map((family) => (
							<div key={family.key} className="rounded-md border border-slate-200 p-3">
								<p className="text-sm font-medium text-slate-800">{family.label}</p>
								<div className="mt-2 flex gap-4">
									{(family.writable ? (['read', 'write'] as const) : (['read'] as const)).map(
										(access) => (
											<Choice
												key={access}
												label={access === 'read' ? 'Read' : 'Write'}
												inputProps={{
													type: 'checkbox',
													name: fields.scopes.name,
													value: `${family.key}:${access}`,
													id: `scope-${family.key}-${access}`,
													'aria-label': `${family.label}: ${access}`,
												}}
											/>
										),
									)}
								</div>
							</div>
						))}
					</div>
				</ChoiceGroup>
				{workspaces.length ? (
					<ChoiceGroup
						legend="Workspaces"
						hint="None chosen: every workspace you can use."
						errors={fields.workspaceIds.errors}
						errorId={fields.workspaceIds.errorId}
					>
						{workspaces.map((workspace) => (
							<Choice
								key={workspace.id}
								label={workspace.name}
								inputProps={{
									type: 'checkbox',
									name: fields.workspaceIds.name,
									value: workspace.id,
									id: `workspace-${workspace.id}`,
								}}
							/>
						))}
					</ChoiceGroup>
				) : null}
				<SubmitButton pending={pending} pendingText="Creating…">
					Create token
				</SubmitButton>
			</Form>
		</Card>
	)
}

function CreatedToken({ created }: { created: { name: string; token: string } }) {
	return (
		<Card className="ring-2 ring-emerald-500">
			<h2 className="text-lg font-semibold">Token “{created.name}” created</h2>
			<p className="mt-1 text-sm text-slate-700" id="new-token-hint">
				Copy it now: it is shown only once. Send it as <code>Authorization: Bearer …</code>.
			</p>
			<input
				readOnly
				aria-label="Your new API token"
				aria-describedby="new-token-hint"
				data-testid="new-token"
				value={created.token}
				className="mt-3 w-full rounded-md border border-slate-300 bg-slate-50 px-3 py-2 font-mono text-sm"
				onFocus={(event) => event.currentTarget.select()}
			/>
		</Card>
	)
}

function TokenRow({ token }: { token: LoaderData['tokens'][number] }) {
	return (
		<li className="flex flex-wrap items-start justify-between gap-3 py-4" data-testid="api-token">
			<div className="min-w-0 text-sm">
				<p className="font-semibold text-slate-900">
					{token.name} <code className="ml-1 text-xs text-slate-600">{token.prefix}…</code>
				</p>
				<p className="mt-0.5 text-slate-600">{token.scopes.join(', ')}</p>
				<p className="mt-0.5 text-slate-600">
					{token.workspaces
						? `Workspaces: ${token.workspaces.map((w) => w.name).join(', ')}`
						: 'All workspaces'}
					{token.mine ? '' : ` · made by ${token.createdByEmail}`}
				</p>
				<p className="mt-0.5 text-slate-600">
					Created <LocalTime value={token.createdAt} /> · Last used{' '}
					{token.lastUsedAt ? <LocalTime value={token.lastUsedAt} /> : 'never'}
				</p>
			</div>
			<ConfirmDialog
				trigger={
					<>
						Revoke<span className="sr-only"> {token.name}</span>
					</>
				}
				title={`Revoke “${token.name}”?`}
				description="Requests with this token fail from the next one on. This cannot be undone."
				confirmLabel={`Revoke “${token.name}”`}
				fields={{ intent: 'revoke', tokenId: token.id }}
				testId="revoke-token"
			/>
		</li>
	)
}

export default function Developers({ loaderData, actionData }: Route.ComponentProps) {
	const { tokens, workspaces } = loaderData
	return (
		<>
			<PageHeader
				title="Developers"
				icon={<Code2 />}
				description="Automate Leadsmith from your own tools with the REST API at /api/v1."
			/>
			<DevelopersNav />
			<div className="grid max-w-3xl grid-cols-1 gap-6">
				{actionData?.created ? <CreatedToken created={actionData.created} /> : null}
				<CreateTokenForm workspaces={workspaces} actionData={actionData} />
				<Card>
					<h2 className="text-lg font-semibold">API tokens</h2>
					{tokens.length === 0 ? (
						<EmptyState className="mt-4 shadow-none" icon={<Code2 />} title="No tokens yet">
							Create one above to call the API.
						</EmptyState>
					) : (
						<ul className="mt-2 divide-y divide-slate-200">
							{tokens.map((token) => (
								<TokenRow key={token.id} token={token} />
							))}
						</ul>
					)}
				</Card>
			</div>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Developers')
