import { getFormProps, useForm } from '@conform-to/react'
import { parseWithZod } from '../utils/form-bounds.ts'
import { data, Form, Link } from 'react-router'
import type { Route } from './+types/test-payment'
import { TestModeBanner } from '../components/billing/test-mode-banner.tsx'
import { SubmitButton } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { FormErrors } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import { declineTestCheckout, findTestCheckout } from '../services/billing/checkout.server.ts'
import { completeTestCheckout } from '../services/billing/complete-checkout.server.ts'
import { TestPaymentSchema } from '../services/billing/schemas.ts'
import { useIsPending } from '../utils/forms.ts'
import { formErrorReply } from '../utils/form-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { formatCents } from '../utils/money.ts'
import { redirectWithError, redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'
import { ScrollRegion } from '../components/ui/scroll-region.tsx'

/**
 * The payment page when Stripe is not configured (TEST MODE): the payer
 * completes or declines. Refused in production unless PAYMENTS=test.
 */
export async function loader({ params, context }: Route.LoaderArgs) {
	const account = context.get(requestContext).account!
	const session = await findTestCheckout(account, params.sessionId)
	return {
		id: session.id,
		status: session.status,
		mode: session.mode,
		total: formatCents(session.total_cents),
		cancelPath: session.cancel_path,
		items: session.line_items.map((item, index) => ({
			key: index,
			description: item.description,
			quantity: item.quantity,
			amount: formatCents(item.unitAmountCents * item.quantity),
			interval: item.interval ?? null,
		})),
	}
}

export async function action({ request, params, context }: Route.ActionArgs) {
	const account = context.get(requestContext).account!
	// Owner and test-mode checks come first: a team member gets 403 whatever it posts.
	await findTestCheckout(account, params.sessionId)
	const formData = await readFormData(request)
	const submission = parseWithZod(formData, { schema: TestPaymentSchema })
	if (submission.status !== 'success') {
		return data({ result: submission.reply() }, { status: 400 })
	}
	try {
		if (submission.value.intent === 'decline') {
			const session = await declineTestCheckout(account, params.sessionId)
			return redirectWithError(session.cancel_path, 'Payment declined. Nothing was charged.')
		}
		const session = await completeTestCheckout(account, params.sessionId)
		// paid already from another checkout: refunded, not delivered twice (decision 0064)
		if (session.status === 'refunded') {
			return redirectWithError(session.success_path, `${session.refund_reason} (Test mode.)`)
		}
		return redirectWithSuccess(session.success_path, 'Payment complete (test mode). Thank you!')
	} catch (error) {
		return formErrorReply(error, submission)
	}
}

export default function TestPayment({ loaderData, actionData }: Route.ComponentProps) {
	const { status, items, total, mode, cancelPath } = loaderData
	const paying = useIsPending('complete')
	const declining = useIsPending('decline')
	const [form] = useForm({
		id: 'test-payment',
		lastResult: actionData?.result,
		onValidate: ({ formData }) => parseWithZod(formData, { schema: TestPaymentSchema }),
	})
	return (
		<div className="mx-auto max-w-xl">
			<PageHeader title="Test payment" description="Checkout without a payment provider." />
			<TestModeBanner>
				This is not a real payment page. Complete to act as if the card was charged, or decline to
				see a failed payment. No money moves.
			</TestModeBanner>
			<Card>
				<h2 className="text-lg font-semibold text-slate-900">Order summary</h2>
				<ScrollRegion className="mt-4" label="Order summary">
					<table className="w-full text-sm">
						<caption className="sr-only">What this checkout pays for</caption>
						<thead className="sr-only">
							<tr>
								<th scope="col">Item</th>
								<th scope="col">Amount</th>
							</tr>
						</thead>
						<tbody className="divide-y divide-slate-100">
							{items.map((item) => (
								<tr key={item.key}>
									<td className="py-2 text-slate-800">
										{item.description}
										{item.quantity > 1 ? ` × ${item.quantity}` : ''}
										{item.interval ? (
											<span className="text-slate-600"> (renews every {item.interval})</span>
										) : null}
									</td>
									<td className="py-2 text-right font-medium text-slate-900 tabular-nums">
										{item.amount}
									</td>
								</tr>
							))}
						</tbody>
						<tfoot>
							<tr className="border-t border-slate-300">
								<th scope="row" className="pt-3 text-left font-semibold text-slate-900">
									Total {mode === 'subscription' ? 'today' : ''}
								</th>
								<td className="pt-3 text-right text-lg font-bold text-slate-900 tabular-nums">
									{total}
								</td>
							</tr>
						</tfoot>
					</table>
				</ScrollRegion>
				{status === 'open' ? (
					<Form method="post" className="mt-6 space-y-4" {...getFormProps(form)}>
						<FormErrors id={form.errorId} errors={form.errors} />
						<div className="flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
							<SubmitButton
								name="intent"
								value="decline"
								variant="secondary"
								pending={declining}
								pendingText="Working…"
							>
								Decline payment
							</SubmitButton>
							<SubmitButton name="intent" value="complete" pending={paying} pendingText="Paying…">
								Pay {total} (test)
							</SubmitButton>
						</div>
					</Form>
				) : (
					<div className="mt-6 space-y-3" role="status">
						<p className="text-sm text-slate-700" data-testid="checkout-status">
							This checkout is {status}.
						</p>
						<Link to={cancelPath} className="text-sm font-semibold text-indigo-700 hover:underline">
							Back
						</Link>
					</div>
				)}
			</Card>
		</div>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Test payment')
