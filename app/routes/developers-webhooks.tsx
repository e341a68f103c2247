import { data, Link } from 'react-router'
import type { Route } from './+types/developers-webhooks'
import { AddEndpointCard, CreditsThresholdCard } from '../components/webhooks/add-endpoint.tsx'
import { EndpointCard, NewSecret } from '../components/webhooks/endpoint-card.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { EmptyState } from '../components/ui/empty-state.tsx'
import { requestContext } from '../context.server.ts'
import {
	canManageWebhooks,
	createEndpoint,
	deleteEndpoint,
	getCreditsThreshold,
	listDeliveries,
	listEndpoints,
	redeliver,
	rotateSecret,
	sendTestEvent,
	setCreditsThreshold,
	setPaused,
} from '../services/webhooks/endpoints.server.ts'
import {
	CreateEndpointSchema,
	EndpointActionSchema,
	RedeliverSchema,
	RotateSchema,
	ThresholdSchema,
} from '../services/webhooks/schemas.ts'
import { flashSigningSecret, takeSigningSecret } from '../services/webhooks/secret-flash.server.ts'
import { actingAccount } from '../services/workspaces/access.server.ts'
import { readFormData } from '../utils/form-data.server.ts'
import { formErrorReply, redirectOnFormError } from '../utils/form-errors.server.ts'
import { parseWithZod } from '../utils/form-bounds.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithError, redirectWithSuccess } from '../utils/toast.server.ts'

// Webhooks on the Developers page (issue 37): endpoints, their one-time secrets, rotation,
// pause, test events and each endpoint's delivery log with "redeliver". Every control is a
// plain form posting here, so the page works without JavaScript.
const PAGE = '/developers/webhooks'

export async function loader({ request, context }: Route.LoaderArgs) {
	const account = actingAccount(context.get(requestContext).account)
	if (!canManageWebhooks(account)) return { canManage: false as const }
	const [endpoints, threshold, flashed] = await Promise.all([
		listEndpoints(account),
		account.accessAllWorkspaces ? getCreditsThreshold(account) : null,
		takeSigningSecret(request, account.user.id),
	])
	const deliveries = await Promise.all(endpoints.map((e) => listDeliveries(account, e.id, 10)))
	const headers = new Headers()
	if (flashed) {
		headers.append('Set-Cookie', flashed.clear)
		// a secret shown once: no cache keeps this page
		headers.set('Cache-Control', 'no-store')
	}
	return data(
		{
			canManage: true as const,
			endpoints: endpoints.map((e, i) => ({ ...e, deliveries: deliveries[i]! })),
			workspaces: account.workspaces,
			accessAll: account.accessAllWorkspaces,
			threshold,
			newSecret: flashed?.secret
				? { endpointId: flashed.endpointId, secret: flashed.secret }
				: null,
		},
		{ headers },
	)
}

export async function action({ request, context }: Route.ActionArgs) {
	const account = actingAccount(context.get(requestContext).account)
	const formData = await readFormData(request)
	const intent = String(formData.get('intent') ?? '')
	if (intent === 'create' || intent === 'threshold') {
		const submission =
			intent === 'create'
				? parseWithZod(formData, { schema: CreateEndpointSchema })
				: parseWithZod(formData, { schema: ThresholdSchema })
		if (submission.status !== 'success')
			return data({ intent, result: submission.reply() }, { status: 400 })
		try {
			if (submission.value.intent === 'threshold') {
				await setCreditsThreshold(account, submission.value.creditsBelow ?? null)
				return redirectWithSuccess(
					`${PAGE}#credits-threshold`,
					submission.value.creditsBelow ? 'Credit threshold saved' : 'Credit threshold removed',
				)
			}
			const { id, secret } = await createEndpoint(account, submission.value)
			return redirectWithSuccess(
				`${PAGE}#new-secret`,
				'Endpoint added. Copy its signing secret now.',
				{
					headers: { 'Set-Cookie': await flashSigningSecret(account.user.id, id, secret) },
				},
			)
		} catch (error) {
			return formErrorReply(error, submission, { intent })
		}
	}
	const schema =
		intent === 'rotate'
			? RotateSchema
			: intent === 'redeliver'
				? RedeliverSchema
				: EndpointActionSchema
	const submission = parseWithZod(formData, { schema })
	if (submission.status !== 'success')
		return redirectWithError(PAGE, 'That action could not be read. Reload the page and try again.')
	const value = submission.value
	const at = `${PAGE}#endpoint-${value.endpointId}`
	try {
		switch (value.intent) {
			case 'rotate': {
				const { secret } = await rotateSecret(account, value.endpointId, value.overlapHours)
				return redirectWithSuccess(`${PAGE}#new-secret`, 'Secret rotated. Copy the new one now.', {
					headers: {
						'Set-Cookie': await flashSigningSecret(account.user.id, value.endpointId, secret),
					},
				})
			}
			case 'redeliver':
				await redeliver(account, value.endpointId, value.deliveryId)
				return redirectWithSuccess(at, 'Delivery queued again')
			case 'pause':
			case 'resume':
				await setPaused(account, value.endpointId, value.intent === 'pause')
				return redirectWithSuccess(
					at,
					value.intent === 'pause' ? 'Endpoint paused' : 'Endpoint enabled',
				)
			case 'delete':
				await deleteEndpoint(account, value.endpointId)
				return redirectWithSuccess(PAGE, 'Endpoint deleted')
			case 'test':
				await sendTestEvent(account, value.endpointId)
				return redirectWithSuccess(at, 'Test event sent: it shows in the delivery log in a moment')
		}
	} catch (error) {
		return redirectOnFormError(error, at)
	}
}

export default function DevelopersWebhooks({ loaderData, actionData }: Route.ComponentProps) {
	const header = (
		<>
			<PageHeader
				title="Webhooks"
				description="Leadsmith POSTs a signed JSON event to your endpoints when work finishes, fails or changes (Standard Webhooks signatures)."
			/>
			<nav aria-label="Developers" className="mb-6 flex gap-4 text-sm">
				<Link to="/developers" className="text-indigo-700 underline">
					API tokens
				</Link>
				<span aria-current="page" className="font-semibold text-slate-900">
					Webhooks
				</span>
			</nav>
		</>
	)
	if (!loaderData.canManage)
		return (
			<>
				{header}
				<Card className="max-w-2xl">
					<p className="text-sm text-slate-700">
						Only the account owner and team admins can manage webhooks.
					</p>
				</Card>
			</>
		)
	return (
		<>
			{header}
			<div className="grid max-w-4xl grid-cols-1 gap-6">
				{loaderData.newSecret ? <NewSecret {...loaderData.newSecret} /> : null}
				{loaderData.endpoints.length === 0 ? (
					<EmptyState title="No endpoints yet">
						Add one below: choose the events it gets and, if you like, the workspaces it reports on.
					</EmptyState>
				) : (
					loaderData.endpoints.map((endpoint) => (
						<EndpointCard
							key={endpoint.id}
							endpoint={endpoint}
							workspaces={loaderData.workspaces}
						/>
					))
				)}
				<AddEndpointCard
					workspaces={loaderData.workspaces}
					accessAll={loaderData.accessAll}
					lastResult={actionData?.intent === 'create' ? actionData.result : undefined}
				/>
				{loaderData.accessAll ? (
					<CreditsThresholdCard
						threshold={loaderData.threshold}
						lastResult={actionData?.intent === 'threshold' ? actionData.result : undefined}
					/>
				) : null}
			</div>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Webhooks')
