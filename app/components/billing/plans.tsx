import { getFormProps, useForm } from '@conform-to/react'
import { Form, useNavigation } from 'react-router'
import { SubscribeSchema } from '../../services/billing/schemas.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { useIsPending } from '../../utils/forms.ts'
import { IdempotencyKey } from '../idempotency-key.tsx'
import { SubmitButton } from '../ui/button.tsx'
import { Badge } from '../ui/choice.tsx'
import { FormErrors } from '../ui/field.tsx'
import type { SubscriptionActionData, SubscriptionOverview } from './current-plan.tsx'
import { PaymentsNotSetUp } from './payments-not-set-up.tsx'

/** The plans, each with its Subscribe or Switch button (one form: the button names the plan). */
export function Plans({
	loaderData,
	actionData,
}: {
	loaderData: SubscriptionOverview & { formKey: string }
	actionData: SubscriptionActionData
}) {
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
								{/* the interval wraps under a long price rather than push it out of the card */}
								<p className="mt-3 flex flex-wrap items-baseline gap-x-1">
									<span className="text-3xl font-bold whitespace-nowrap text-slate-900 tabular-nums">
										{plan.price}
									</span>{' '}
									<span className="text-sm whitespace-nowrap text-slate-600">
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
