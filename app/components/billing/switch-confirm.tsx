import { getFormProps, useForm } from '@conform-to/react'
import { Form, Link } from 'react-router'
import { SwitchPlanSchema } from '../../services/billing/schemas.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { useIsPending } from '../../utils/forms.ts'
import { IdempotencyKey } from '../idempotency-key.tsx'
import { SubmitButton } from '../ui/button.tsx'
import { Card } from '../ui/card.tsx'
import { FormErrors } from '../ui/field.tsx'
import type { SubscriptionActionData } from './current-plan.tsx'

/** A switch of an active plan, priced by the loader (formatted amounts and dates). */
export type SwitchPreview = {
	planId: number
	from: string
	to: string
	stripe: boolean
	credit: string
	charge: string
	dueNow: string
	leftOver: string | null
	keepsRenewalDate: boolean
	periodEnd: string | null
	renewal: string
}

/** The confirm step of a switch: what it costs now and from when (a page: works without JavaScript). */
export function SwitchConfirm({
	switching,
	actionData,
	formKey,
}: {
	switching: SwitchPreview
	actionData: SubscriptionActionData
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
