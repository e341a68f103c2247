import { getFormProps, useForm } from '@conform-to/react'
import { parseWithZod } from '../utils/form-bounds.ts'
import { data, Form, Link, redirect, useNavigation } from 'react-router'
import type { Route } from './+types/subscription'
import { PaymentsNotSetUp } from '../components/billing/payments-not-set-up.tsx'
import { TestModeBanner } from '../components/billing/test-mode-banner.tsx'
import { IdempotencyKey } from '../components/idempotency-key.tsx'
import { SubmitButton } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { Badge } from '../components/ui/choice.tsx'
import { FormErrors } from '../components/ui/field.tsx'
import { isOwner, requestContext, type AccountContext } from '../context.server.ts'
import { assertBillingOwner } from '../services/billing/access.server.ts'
import { getSubscriptionOverview } from '../services/billing/billing-overview.server.ts'
import { choosePlan, previewPlanChange } from '../services/billing/choose-plan.server.ts'
import { newFormKey, oncePerSubmission } from '../services/idempotency/form-submissions.server.ts'
import {
	CancelSchema,
	ResumeSchema,
	SubscribeSchema,
	SubscriptionActionSchema,
	SwitchPlanSchema,
} from '../services/billing/schemas.ts'
import {
	cancelSubscriptionAtPeriodEnd,
	resumeSubscription,
} from '../services/billing/subscriptions.server.ts'
import { useIsPending } from '../utils/forms.ts'
import { FormError, replyWithFormError } from '../utils/http-errors.server.ts'
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
async function switchPreview(account: AccountContext, change: string | null) {
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
	// A lifetime deal with a paid plan still running: the plan is shown with its cancel control
	if (isLTD && !current?.active) {
		return <LifetimeDeal />
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
		<>
			{isLTD ? <LifetimeDeal paidPlan={current.planName} /> : null}
			<Card className={isLTD ? 'mt-4' : undefined}>
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
						// asks first, as deletions do (a <details>: works without JavaScript)
						<details className="mt-6" open={cancelForm.errors?.length ? true : undefined}>
							<summary className="cursor-pointer text-sm font-medium text-red-700 hover:underline">
								Cancel the subscription…
							</summary>
							<Form method="post" className="mt-3 space-y-3" {...getFormProps(cancelForm)}>
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
						</details>
					)
				) : null}
			</Card>
		</>
	)
}

function LifetimeDeal({ paidPlan }: { paidPlan?: string }) {
	return (
		<Card>
			<h2 className="text-sm font-semibold text-slate-600">Current plan</h2>
			<p className="mt-2 text-2xl font-bold text-slate-900" data-testid="current-plan">
				Lifetime deal
			</p>
			<p className="mt-1 text-sm text-slate-600">
				Your lifetime deal includes every feature. There is nothing to renew.
			</p>
			{paidPlan ? (
				<p className="mt-3 rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200">
					Your {paidPlan} subscription is still active and renews as billed. You do not need it with
					the lifetime deal: cancel it below.
				</p>
			) : null}
		</Card>
	)
}

function SwitchConfirm({
	switching,
	actionData,
	formKey,
}: {
	switching: NonNullable<LoaderData['switching']>
	actionData: ActionData
	formKey: string
}) {
	const confirming = useIsPending('switch')
	const [form] = useForm({
		id: 'switch-plan',
		lastResult: actionData?.intent === 'switch' ? actionData.result : undefined,
		onValidate: ({ formData }) => parseWithZod(formData, { schema: SwitchPlanSchema }),
	})
	return (
		<Card className="mt-6 ring-2 ring-indigo-600">
			<h2 className="text-lg font-semibold text-slate-900">
				Switch from {switching.from} to {switching.to}
			</h2>
			<dl className="mt-4 space-y-2 text-sm">
				<div className="flex justify-between gap-4">
					<dt className="text-slate-600">Credit for the unused time of {switching.from}</dt>
					<dd className="font-medium tabular-nums" data-testid="switch-credit">
						−{switching.credit}
					</dd>
				</div>
				<div className="flex justify-between gap-4">
					<dt className="text-slate-600">
						{switching.to}{' '}
						{switching.keepsRenewalDate
							? `for the rest of this period (until ${switching.periodEnd})`
							: `for a new period from today until ${switching.periodEnd}`}
					</dt>
					<dd className="font-medium tabular-nums" data-testid="switch-charge">
						{switching.charge}
					</dd>
				</div>
				<div className="flex justify-between gap-4 border-t border-slate-200 pt-2 font-semibold">
					<dt>{switching.stripe ? 'On your next invoice' : 'Charged now'}</dt>
					<dd className="tabular-nums" data-testid="switch-due">
						{switching.dueNow}
					</dd>
				</div>
			</dl>
			<p className="mt-3 text-sm text-slate-700" data-testid="switch-summary">
				{switching.to} starts today.{' '}
				{switching.leftOver ? `The remaining ${switching.leftOver} credit is not paid out. ` : ''}
				From {switching.periodEnd} you pay {switching.renewal}.
			</p>
			<Form
				method="post"
				className="mt-4 flex flex-wrap items-center gap-4"
				{...getFormProps(form)}
			>
				<input type="hidden" name="intent" value="switch" />
				<input type="hidden" name="planId" value={switching.planId} />
				<IdempotencyKey value={formKey} />
				<FormErrors id={form.errorId} errors={form.errors} />
				<SubmitButton pending={confirming} pendingText="One moment…">
					Confirm the switch
				</SubmitButton>
				<Link to="/subscription" className="text-sm font-semibold text-indigo-700 hover:underline">
					Keep my plan
				</Link>
			</Form>
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
				<IdempotencyKey value={loaderData.formKey} />
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
