import { getFormProps, useForm } from '@conform-to/react'
import { parseWithZod } from '../utils/form-bounds.ts'
import { data, Form, Link, redirect } from 'react-router'
import { z } from 'zod'
import type { Route } from './+types/checkout'
import { TestModeBanner } from '../components/billing/test-mode-banner.tsx'
import { IdempotencyKey } from '../components/idempotency-key.tsx'
import { SubmitButton } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { FormErrors } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import { paymentProvider } from '../services/billing/payments.server.ts'
import { newFormKey, oncePerSubmission } from '../services/idempotency/form-submissions.server.ts'
import { domainAccount } from '../services/domains/access.server.ts'
import { actingAccount } from '../services/workspaces/access.server.ts'
import { findDomain, hasLiveSubscription } from '../services/domains/domains.server.ts'
import {
	domainPriceCents,
	startDomainSubscription,
} from '../services/domains/subscriptions.server.ts'
import {
	decodeOrder,
	quoteInboxOrder,
	startInboxOrderCheckout,
} from '../services/inboxes/orders.server.ts'
import { db } from '../../db/index.server.ts'
import { useIsPending } from '../utils/forms.ts'
import { FormError } from '../utils/http-errors.server.ts'
import { formErrorReply } from '../utils/form-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { formatCents } from '../utils/money.ts'
import { readFormData } from '../utils/form-data.server.ts'

/**
 * The domain checkout (SPEC.md: scope routes): a domain subscription (?domain=) or a quoted
 * inbox order (?order=) reviewed, then paid on Stripe Checkout or the test-payment page.
 * Nothing is written before paying; the order is created by the payment's fulfilment.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
	const { account, currentWorkspaceId } = context.get(requestContext)
	const acting = domainAccount(account, 'view')
	const params = new URL(request.url).searchParams
	const base = {
		provider: paymentProvider(),
		domain: null,
		order: null,
		error: null,
		formKey: newFormKey(),
	}
	const domainId = params.get('domain')
	const order = params.get('order')
	try {
		if (domainId) {
			const domain = await findDomain(acting, domainId)
			if (await hasLiveSubscription(db, domain.id)) {
				throw new FormError(`${domain.name} already has an active subscription.`)
			}
			const price = domainPriceCents()
			return {
				...base,
				domain: domain.id,
				lines: [{ description: `Domain subscription: ${domain.name}`, amount: formatCents(price) }],
				total: `${formatCents(price)} a month`,
				backTo: '/domain-subscriptions',
			}
		}
		if (order) {
			const quote = await quoteInboxOrder(acting, decodeOrder(order), {
				workspaceId: currentWorkspaceId,
			})
			return {
				...base,
				order,
				lines: quote.domains.map((d) => ({
					description: `${d.addresses.length} ${quote.provider === 'google' ? 'Google' : 'Microsoft'} inboxes at ${d.name}: ${d.addresses.join(', ')}`,
					amount: formatCents(d.addresses.length * quote.unitCents),
				})),
				total: `${formatCents(quote.totalCents)} a month`,
				backTo: '/ordering-inboxes',
			}
		}
	} catch (error) {
		if (!(error instanceof FormError)) throw error
		return { ...base, lines: [], total: null, backTo: '/domains', error: error.message }
	}
	return {
		...base,
		lines: [],
		total: null,
		backTo: '/domains',
		error: 'Nothing to pay: pick a domain to subscribe or order inboxes first.',
	}
}

const PaySchema = z.object({
	intent: z.literal('pay'),
	domain: z.string().optional(),
	order: z.string().optional(),
})

export async function action({ request, context }: Route.ActionArgs) {
	const { account, currentWorkspaceId } = context.get(requestContext)
	domainAccount(account, 'change')
	const formData = await readFormData(request)
	const submission = parseWithZod(formData, { schema: PaySchema })
	if (submission.status !== 'success') {
		return data({ result: submission.reply() }, { status: 400 })
	}
	try {
		const { domain, order } = submission.value
		if (!domain && !order) throw new FormError('Nothing to pay.')
		// sent twice (or back from the payment page and again): one checkout
		const checkout = await oncePerSubmission(
			{ accountId: actingAccount(account).accountId, form: 'checkout', formData },
			(trx, { intentKey }) =>
				domain
					? startDomainSubscription(account, domain, { executor: trx, intentKey })
					: startInboxOrderCheckout(account, decodeOrder(order!), {
							workspaceId: currentWorkspaceId,
							executor: trx,
							intentKey,
						}),
		)
		return redirect(checkout.url)
	} catch (error) {
		return formErrorReply(error, submission)
	}
}

export default function Checkout({ loaderData, actionData }: Route.ComponentProps) {
	const { lines, total, error, domain, order, provider, backTo } = loaderData
	const paying = useIsPending('pay')
	const [form] = useForm({ id: 'checkout', lastResult: actionData?.result })
	return (
		<div className="mx-auto max-w-2xl">
			<PageHeader title="Checkout" description="Review what you are about to pay for." />
			{provider === 'test' ? (
				<TestModeBanner>Payments run in test mode: no card is charged.</TestModeBanner>
			) : null}
			<Card>
				{error ? (
					<div className="space-y-3">
						<FormErrors errors={[error]} />
						<Link to={backTo} className="text-sm font-semibold text-indigo-700 hover:underline">
							Go back
						</Link>
					</div>
				) : (
					<>
						<ul className="divide-y divide-slate-100" data-testid="checkout-lines">
							{lines.map((line, index) => (
								<li key={index} className="flex justify-between gap-4 py-3 text-sm">
									<span className="break-all text-slate-800">{line.description}</span>
									<span className="font-medium whitespace-nowrap text-slate-900">
										{line.amount}
									</span>
								</li>
							))}
						</ul>
						<p className="mt-4 flex justify-between border-t border-slate-200 pt-4 font-semibold">
							<span>Total</span>
							<span data-testid="checkout-total">{total}</span>
						</p>
						{provider === null ? (
							<p className="mt-4 rounded-md bg-slate-100 p-3 text-sm text-slate-700">
								Payments are not set up on this server yet. Ask the administrator to configure
								Stripe.
							</p>
						) : (
							<Form method="post" {...getFormProps(form)} className="mt-6 flex items-center gap-4">
								<FormErrors id={form.errorId} errors={form.errors} />
								{domain ? <input type="hidden" name="domain" value={domain} /> : null}
								{order ? <input type="hidden" name="order" value={order} /> : null}
								<IdempotencyKey value={loaderData.formKey} />
								<SubmitButton name="intent" value="pay" pending={paying} pendingText="One moment…">
									Pay {total}
								</SubmitButton>
								<Link to={backTo} className="text-sm font-semibold text-slate-700 hover:underline">
									Back
								</Link>
							</Form>
						)}
					</>
				)}
			</Card>
		</div>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Checkout')
