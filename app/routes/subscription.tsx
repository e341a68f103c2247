import { getFormProps, useForm } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { data, Form, Link, redirect, useNavigation } from 'react-router'
import type { Route } from './+types/subscription'
import { PaymentsNotSetUp } from '../components/billing/payments-not-set-up.tsx'
import { TestModeBanner } from '../components/billing/test-mode-banner.tsx'
import { SubmitButton } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { Badge } from '../components/ui/choice.tsx'
import { FormErrors } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import { assertBillingOwner } from '../services/billing/access.server.ts'
import { getSubscriptionOverview } from '../services/billing/billing-overview.server.ts'
import { choosePlan } from '../services/billing/choose-plan.server.ts'
import {
	CancelSchema,
	ResumeSchema,
	SubscribeSchema,
	SubscriptionActionSchema,
} from '../services/billing/schemas.ts'
import {
	cancelSubscriptionAtPeriodEnd,
	resumeSubscription,
} from '../services/billing/subscriptions.server.ts'
import { useIsPending } from '../utils/forms.ts'
import { FormError, replyWithFormError } from '../utils/http-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { formatDate } from '../utils/money.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'

export async function loader({ request, context }: Route.LoaderArgs) {
	const account = context.get(requestContext).account!
	const checkoutId = new URL(request.url).searchParams.get('checkout')
	return getSubscriptionOverview(account, { checkoutId })
}

const INTENTS = ['subscribe', 'cancel', 'resume'] as const

export async function action({ request, context }: Route.ActionArgs) {
	const account = context.get(requestContext).account!
	assertBillingOwner(account)
	const formData = await request.formData()
	const intent = INTENTS.find((i) => i === formData.get('intent')) ?? 'subscribe'
	const submission = parseWithZod(formData, { schema: SubscriptionActionSchema })
	if (submission.status !== 'success') {
		return data({ intent, result: submission.reply() }, { status: 400 })
	}
	const value = submission.value
	try {
		if (value.intent === 'subscribe') {
			const choice = await choosePlan(account, value.planId)
			if (choice.kind === 'checkout') return redirect(choice.url)
			return redirectWithSuccess('/subscription', `You are now on the ${choice.plan.name} plan.`)
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
		if (!(error instanceof FormError)) throw error
		return data({ intent, result: replyWithFormError(submission, error) }, { status: 400 })
	}
}

type LoaderData = Route.ComponentProps['loaderData']
type ActionData = Route.ComponentProps['actionData']

const STATUS_LABELS: Record<string, { label: string; tone: 'green' | 'amber' | 'slate' }> = {
	active: { label: 'Active', tone: 'green' },
	past_due: { label: 'Payment failed', tone: 'amber' },
	expired: { label: 'Expired', tone: 'slate' },
	incomplete: { label: 'Incomplete', tone: 'amber' },
}

function CurrentPlan({
	current,
	isLTD,
	isOwner,
	actionData,
}: {
	current: LoaderData['current']
	isLTD: boolean
	isOwner: boolean
	actionData: ActionData
}) {
	const cancelling = useIsPending('cancel')
	const resuming = useIsPending('resume')
	const [cancelForm] = useForm({
		id: 'cancel-subscription',
		lastResult: actionData?.intent === 'cancel' ? actionData.result : undefined,
		onValidate: ({ formData }) => parseWithZod(formData, { schema: CancelSchema }),
	})
	const [resumeForm] = useForm({
		id: 'resume-subscription',
		lastResult: actionData?.intent === 'resume' ? actionData.result : undefined,
		onValidate: ({ formData }) => parseWithZod(formData, { schema: ResumeSchema }),
	})
	if (isLTD) {
		return (
			<Card>
				<h2 className="text-sm font-semibold text-slate-600">Current plan</h2>
				<p className="mt-2 text-2xl font-bold text-slate-900" data-testid="current-plan">
					Lifetime deal
				</p>
				<p className="mt-1 text-sm text-slate-600">
					Your lifetime deal includes every feature. There is nothing to renew.
				</p>
			</Card>
		)
	}
	if (!current) {
		return (
			<Card>
				<h2 className="text-sm font-semibold text-slate-600">Current plan</h2>
				<p className="mt-2 text-2xl font-bold text-slate-900" data-testid="current-plan">
					No active plan
				</p>
				<p className="mt-1 text-sm text-slate-600">
					{isOwner
						? 'Choose a plan below to start creating leads, enriching them and sending.'
						: 'The account owner has not chosen a plan yet.'}
				</p>
			</Card>
		)
	}
	const status = STATUS_LABELS[current.status] ?? { label: current.status, tone: 'slate' as const }
	return (
		<Card>
			<div className="flex flex-wrap items-start justify-between gap-4">
				<div>
					<h2 className="text-sm font-semibold text-slate-600">Current plan</h2>
					<p className="mt-2 text-2xl font-bold text-slate-900" data-testid="current-plan">
						{current.planName}
					</p>
					<p className="mt-1 text-sm text-slate-600">
						{current.price} per {current.interval}
					</p>
				</div>
				<Badge tone={current.cancelAtPeriodEnd && current.active ? 'amber' : status.tone}>
					{current.cancelAtPeriodEnd && current.active ? 'Ends at period end' : status.label}
				</Badge>
			</div>
			<dl className="mt-4 grid gap-4 text-sm sm:grid-cols-2">
				<div>
					<dt className="text-slate-600">Billed on</dt>
					<dd className="font-medium text-slate-900" data-testid="billing-date">
						{current.billingDate ?? '—'}
					</dd>
				</div>
				<div>
					<dt className="text-slate-600">
						{!current.active ? 'Ended on' : current.cancelAtPeriodEnd ? 'Ends on' : 'Renews on'}
					</dt>
					<dd className="font-medium text-slate-900" data-testid="expire-date">
						{current.expireDate ?? '—'}
					</dd>
				</div>
			</dl>
			{current.status === 'past_due' ? (
				<p className="mt-4 rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200">
					The last payment failed, so the plan is paused. Update your card with the payment
					provider, or choose a plan again below.
				</p>
			) : null}
			{isOwner && current.active ? (
				current.cancelAtPeriodEnd ? (
					<Form method="post" className="mt-6 space-y-3" {...getFormProps(resumeForm)}>
						<input type="hidden" name="intent" value="resume" />
						<FormErrors id={resumeForm.errorId} errors={resumeForm.errors} />
						<p className="text-sm text-slate-600">
							You keep access until {current.expireDate}. Resume to keep the plan after that.
						</p>
						<SubmitButton pending={resuming} pendingText="Resuming…">
							Resume subscription
						</SubmitButton>
					</Form>
				) : (
					<Form method="post" className="mt-6 space-y-3" {...getFormProps(cancelForm)}>
						<input type="hidden" name="intent" value="cancel" />
						<FormErrors id={cancelForm.errorId} errors={cancelForm.errors} />
						<p className="text-sm text-slate-600">
							Cancelling stops the renewal. You keep access and your credits until{' '}
							{current.expireDate}.
						</p>
						<SubmitButton variant="secondary" pending={cancelling} pendingText="Cancelling…">
							Cancel at period end
						</SubmitButton>
					</Form>
				)
			) : null}
		</Card>
	)
}

function Plans({ loaderData, actionData }: { loaderData: LoaderData; actionData: ActionData }) {
	const choosing = useIsPending('subscribe')
	const pendingPlan = useNavigation().formData?.get('planId')
	const [form, fields] = useForm({
		id: 'choose-plan',
		lastResult: actionData?.intent === 'subscribe' ? actionData.result : undefined,
		onValidate: ({ formData }) => parseWithZod(formData, { schema: SubscribeSchema }),
	})
	const { plans, current, isLTD, paymentsAvailable, isPlatformAdmin } = loaderData
	const activePlanId = current?.active ? current.planId : null
	const errors = [...(form.errors ?? []), ...(fields.planId.errors ?? [])]
	return (
		<section aria-labelledby="plans-heading" className="mt-8">
			<h2 id="plans-heading" className="text-lg font-semibold text-slate-900">
				Plans
			</h2>
			<p className="mt-1 text-sm text-slate-600">
				Every plan includes every feature. Credits pay for scraping and AI enrichment run with
				platform keys; they are added every month.
			</p>
			{!paymentsAvailable ? <PaymentsNotSetUp isPlatformAdmin={isPlatformAdmin} /> : null}
			<Form method="post" className="mt-4" {...getFormProps(form)}>
				<input type="hidden" name="intent" value="subscribe" />
				<FormErrors id={form.errorId} errors={errors} />
				<ul className="mt-4 grid gap-4 sm:grid-cols-2 xl:grid-cols-4">
					{plans.map((plan) => {
						const isCurrent = plan.id === activePlanId
						return (
							<li
								key={plan.id}
								data-testid={`plan-${plan.id}`}
								className={
									isCurrent
										? 'flex flex-col rounded-lg bg-white p-5 shadow-sm ring-2 ring-indigo-600'
										: 'flex flex-col rounded-lg bg-white p-5 shadow-sm ring-1 ring-slate-200'
								}
							>
								<div className="flex items-center justify-between gap-2">
									<h3 className="font-semibold text-slate-900">{plan.name}</h3>
									{isCurrent ? <Badge tone="indigo">Current</Badge> : null}
								</div>
								<p className="mt-3">
									<span className="text-3xl font-bold text-slate-900">{plan.price}</span>
									<span className="text-sm whitespace-nowrap text-slate-600">
										{' '}
										/ {plan.interval}
									</span>
								</p>
								<ul className="mt-4 flex-1 space-y-1 text-sm text-slate-700">
									<li>{plan.monthlyCredits.toLocaleString('en')} credits every month</li>
									<li>{plan.tier === 'unlimited' ? 'Unlimited tier' : 'Starter tier'}</li>
									<li>Billed {plan.interval === 'year' ? 'yearly' : 'monthly'}</li>
								</ul>
								<div className="mt-5">
									{isLTD ? (
										<p className="text-sm text-slate-600">Included in your lifetime deal</p>
									) : isCurrent ? (
										<p className="text-sm font-medium text-indigo-800">Your current plan</p>
									) : paymentsAvailable ? (
										<SubmitButton
											name="planId"
											value={plan.id}
											className="w-full"
											variant={activePlanId ? 'secondary' : 'primary'}
											pending={choosing && pendingPlan === String(plan.id)}
											pendingText="One moment…"
										>
											{activePlanId ? 'Switch' : 'Subscribe'}
											<span className="sr-only"> to {plan.name}</span>
										</SubmitButton>
									) : null}
								</div>
							</li>
						)
					})}
				</ul>
			</Form>
		</section>
	)
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
			{isOwner ? <Plans loaderData={loaderData} actionData={actionData} /> : null}
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Subscription')
