import { parseWithZod } from '../utils/form-bounds.ts'
import { data, Link, redirect } from 'react-router'
import type { Route } from './+types/subscription'
import { CurrentPlan } from '../components/billing/current-plan.tsx'
import { Plans } from '../components/billing/plans.tsx'
import { SwitchConfirm, type SwitchPreview } from '../components/billing/switch-confirm.tsx'
import { TestModeBanner } from '../components/billing/test-mode-banner.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { isOwner, requestContext, type AccountContext } from '../context.server.ts'
import { assertBillingOwner } from '../services/billing/access.server.ts'
import { getSubscriptionOverview } from '../services/billing/billing-overview.server.ts'
import { choosePlan, previewPlanChange } from '../services/billing/choose-plan.server.ts'
import { newFormKey, oncePerSubmission } from '../services/idempotency/form-submissions.server.ts'
import { SubscriptionActionSchema } from '../services/billing/schemas.ts'
import {
	cancelSubscriptionAtPeriodEnd,
	resumeSubscription,
} from '../services/billing/subscriptions.server.ts'
import { formErrorReply } from '../utils/form-errors.server.ts'
import { FormError } from '../utils/http-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { formatCents, formatDate } from '../utils/money.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

export async function loader({ request, context }: Route.LoaderArgs) {
	const account = context.get(requestContext).account!
	const params = new URL(request.url).searchParams
	const overview = await getSubscriptionOverview(account, { checkoutId: params.get('checkout') })
	return {
		...overview,
		switching: await switchPreview(account, params.get('change')),
		formKey: newFormKey(),
	}
}

/** ?change=<plan id>: the confirm step of a switch, with what it costs now and from when. */
async function switchPreview(
	account: AccountContext,
	change: string | null,
): Promise<SwitchPreview | null> {
	const planId = Number(change)
	if (!change || !Number.isSafeInteger(planId) || !isOwner(account) || account.isLTD) return null
	try {
		const preview = await previewPlanChange(account, planId)
		if (!preview) return null
		const { proration: p } = preview
		return {
			planId: preview.to.id,
			from: preview.from.name,
			to: preview.to.name,
			stripe: preview.provider === 'stripe',
			credit: formatCents(p.creditCents),
			charge: formatCents(p.chargeCents),
			dueNow: formatCents(Math.max(0, p.dueNowCents)),
			leftOver: p.dueNowCents < 0 ? formatCents(-p.dueNowCents) : null,
			keepsRenewalDate: p.keepsRenewalDate,
			periodEnd: formatDate(p.periodEnd),
			renewal: `${formatCents(preview.to.priceCents)} per ${preview.to.interval}`,
		}
	} catch (error) {
		if (error instanceof FormError) return null
		throw error
	}
}

const INTENTS = ['subscribe', 'cancel', 'resume', 'switch'] as const

export async function action({ request, context }: Route.ActionArgs) {
	const account = context.get(requestContext).account!
	const accountId = assertBillingOwner(account)
	const formData = await readFormData(request)
	const intent = INTENTS.find((i) => i === formData.get('intent')) ?? 'subscribe'
	const submission = parseWithZod(formData, { schema: SubscriptionActionSchema })
	if (submission.status !== 'success') {
		return data({ intent, result: submission.reply() }, { status: 400 })
	}
	const value = submission.value
	// sent twice: one checkout (or one plan change), the same answer
	async function choosePlanOnce(planId: number) {
		const done = await oncePerSubmission(
			{ accountId, form: 'choose-plan', formData },
			async (trx, { intentKey }) => {
				const choice = await choosePlan(account, planId, { executor: trx, intentKey })
				return choice.kind === 'checkout'
					? { to: choice.url, message: null }
					: { to: '/subscription', message: `You are now on the ${choice.plan.name} plan.` }
			},
		)
		if (!done.message) return redirect(done.to)
		return redirectWithSuccess(done.to, done.message)
	}
	try {
		if (value.intent === 'subscribe') {
			const planId = value.planId
			// switching an active plan: show its proration first (a page, so it works without JS)
			if (!account.isLTD && (await previewPlanChange(account, planId))) {
				return redirect(`/subscription?change=${planId}`)
			}
			return await choosePlanOnce(planId)
		}
		if (value.intent === 'switch') {
			return await choosePlanOnce(value.planId)
		}
		if (value.intent === 'cancel') {
			const sub = await cancelSubscriptionAtPeriodEnd(account)
			return redirectWithSuccess(
				'/subscription',
				`Your subscription ends on ${formatDate(sub.expire_date)}. You keep access until then.`,
			)
		}
		await resumeSubscription(account)
		return redirectWithSuccess('/subscription', 'Your subscription renews as usual.')
	} catch (error) {
		return formErrorReply(error, submission, { intent })
	}
}

export default function Subscription({ loaderData, actionData }: Route.ComponentProps) {
	const { isOwner, ownerEmail, testMode, checkout, current, isLTD } = loaderData
	return (
		<>
			<PageHeader
				title="Subscription"
				description="Your plan, when it renews, and the plans you can switch to."
			/>
			{testMode && isOwner ? <TestModeBanner /> : null}
			{!isOwner ? (
				<Card className="mb-6">
					<p className="text-sm text-slate-700" data-testid="billing-owner">
						Billing for this account is managed by{' '}
						<span className="font-semibold text-slate-900">{ownerEmail ?? 'the owner'}</span>. Ask
						them to change the plan or buy credits.
					</p>
				</Card>
			) : null}
			{checkout?.status === 'open' ? (
				<p
					role="status"
					className="mb-6 rounded-md bg-indigo-50 p-3 text-sm text-indigo-900 ring-1 ring-indigo-200"
				>
					Thank you. We are waiting for the payment provider to confirm your payment; this page
					shows your plan as soon as it does.{' '}
					<Link to="/subscription" className="font-semibold underline">
						Refresh
					</Link>
				</p>
			) : null}
			<CurrentPlan current={current} isLTD={isLTD} isOwner={isOwner} actionData={actionData} />
			{isOwner && loaderData.switching ? (
				<SwitchConfirm
					switching={loaderData.switching}
					actionData={actionData}
					formKey={loaderData.formKey}
				/>
			) : null}
			{isOwner ? <Plans loaderData={loaderData} actionData={actionData} /> : null}
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Subscription')
