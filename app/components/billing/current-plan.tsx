import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react'
import { Form } from 'react-router'
import type { getSubscriptionOverview } from '../../services/billing/billing-overview.server.ts'
import { CancelSchema, ResumeSchema } from '../../services/billing/schemas.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { useIsPending } from '../../utils/forms.ts'
import { SubmitButton } from '../ui/button.tsx'
import { Card } from '../ui/card.tsx'
import { Badge } from '../ui/choice.tsx'
import { FormErrors } from '../ui/field.tsx'

/** What /subscription's loader reads of the plans and the current plan. */
export type SubscriptionOverview = Awaited<ReturnType<typeof getSubscriptionOverview>>

/** What /subscription's action answered: the form it was for, with its errors. */
export type SubscriptionActionData =
	| { intent: 'subscribe' | 'cancel' | 'resume' | 'switch'; result: SubmissionResult<string[]> }
	| undefined

const STATUS_LABELS: Record<string, { label: string; tone: 'green' | 'amber' | 'slate' }> = {
	active: { label: 'Active', tone: 'green' },
	past_due: { label: 'Payment failed', tone: 'amber' },
	expired: { label: 'Expired', tone: 'slate' },
	incomplete: { label: 'Incomplete', tone: 'amber' },
}

/** The plan, its dates and status, and the owner's cancel or resume. */
export function CurrentPlan({
	current,
	isLTD,
	isOwner,
	actionData,
}: {
	current: SubscriptionOverview['current']
	isLTD: boolean
	isOwner: boolean
	actionData: SubscriptionActionData
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
