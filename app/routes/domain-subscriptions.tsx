import { data, Form, Link } from 'react-router'
import type { Route } from './+types/domain-subscriptions'
import { Button, buttonClasses } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { Badge } from '../components/ui/choice.tsx'
import { requestContext } from '../context.server.ts'
import { domainAccount } from '../services/domains/access.server.ts'
import { DomainRowActionSchema } from '../services/domains/schemas.ts'
import {
	domainPriceCents,
	listDomainSubscriptions,
	setDomainSubscriptionCancel,
} from '../services/domains/subscriptions.server.ts'
import { paymentProvider } from '../services/billing/payments.server.ts'
import { canChangeDomains } from '../services/workspaces/access.server.ts'
import { redirectOnFormError } from '../utils/form-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { formatCents, formatDate } from '../utils/money.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

export async function loader({ context }: Route.LoaderArgs) {
	const acting = domainAccount(context.get(requestContext).account, 'view')
	const rows = await listDomainSubscriptions(acting)
	const now = Date.now()
	const testMode = paymentProvider() === 'test'
	return {
		canChange: canChangeDomains(acting),
		price: formatCents(domainPriceCents()),
		testMode,
		rows: rows.map((r) => {
			const live =
				(r.status === 'active' || r.status === 'past_due') &&
				r.expire_date !== null &&
				new Date(r.expire_date).getTime() > now
			// Stripe charges the card; test mode renews only while this server takes test payments.
			const renews = live && !r.cancel_at_period_end && (r.provider === 'stripe' || testMode)
			return {
				domainId: r.domain_id,
				name: r.name,
				subscriptionId: r.subscription_id,
				live,
				renews,
				status: live
					? r.cancel_at_period_end
						? 'ends'
						: r.status === 'past_due'
							? 'past due'
							: 'active'
					: r.status === 'active' || r.status === 'past_due'
						? 'expired' // its period is over; the renewal job has not marked it yet
						: (r.status ?? 'not subscribed'),
				price: r.price_cents !== null ? formatCents(r.price_cents) : null,
				renewal: r.expire_date ? formatDate(r.expire_date) : null,
				cancelAtPeriodEnd: r.cancel_at_period_end ?? false,
			}
		}),
	}
}

export async function action({ request, context }: Route.ActionArgs) {
	const { account } = context.get(requestContext)
	const parsed = DomainRowActionSchema.safeParse(Object.fromEntries(await readFormData(request)))
	if (!parsed.success || !['cancel', 'resume'].includes(parsed.data.intent)) {
		throw data('Unknown action', { status: 400 })
	}
	try {
		const cancel = parsed.data.intent === 'cancel'
		const sub = await setDomainSubscriptionCancel(account, parsed.data.id ?? '', cancel)
		return redirectWithSuccess(
			'/domain-subscriptions',
			cancel
				? `${sub.name} ends on ${formatDate(sub.expire_date)}; it loses forwarding and inbox ordering then`
				: `${sub.name} renews as usual`,
		)
	} catch (error) {
		return redirectOnFormError(error, '/domain-subscriptions')
	}
}

const TONES = { active: 'green', ends: 'amber', 'past due': 'amber' } as const

export default function DomainSubscriptions({ loaderData }: Route.ComponentProps) {
	const { rows, canChange, price, testMode } = loaderData
	return (
		<>
			<PageHeader
				title="Domain subscriptions"
				description={`Each domain is billed ${price} a month and renews each month until you cancel. A cancelled subscription runs to the end of its paid month; then the domain loses forwarding and inbox ordering.`}
			/>
			{testMode ? (
				<p className="mb-4 text-sm text-slate-600" data-testid="test-mode-renewal">
					TEST MODE: renewals are recorded on the renewal date without charging anyone.
				</p>
			) : null}
			{rows.length === 0 ? (
				<Card>
					<p className="text-sm text-slate-600">
						No domains yet.{' '}
						<Link to="/domains" className="font-semibold text-indigo-700 hover:underline">
							Import domains
						</Link>{' '}
						first.
					</p>
				</Card>
			) : (
				<div className="relative overflow-x-auto rounded-lg bg-white shadow-sm ring-1 ring-slate-200">
					<table
						className="min-w-full divide-y divide-slate-200 text-sm"
						data-testid="subscriptions"
					>
						<caption className="sr-only">Subscription per domain</caption>
						<thead className="bg-slate-50 text-left text-slate-600">
							<tr>
								<th scope="col" className="px-4 py-3 font-semibold">
									Domain
								</th>
								<th scope="col" className="px-4 py-3 font-semibold">
									Status
								</th>
								<th scope="col" className="px-4 py-3 font-semibold">
									Renews or ends
								</th>
								<th scope="col" className="px-4 py-3 font-semibold">
									Price
								</th>
								{canChange ? (
									<th scope="col" className="px-4 py-3">
										<span className="sr-only">Actions</span>
									</th>
								) : null}
							</tr>
						</thead>
						<tbody className="divide-y divide-slate-100">
							{rows.map((r) => (
								<tr key={r.domainId} data-domain={r.name}>
									<th scope="row" className="px-4 py-3 text-left font-medium text-slate-900">
										{r.name}
									</th>
									<td className="px-4 py-3">
										<Badge tone={TONES[r.status as keyof typeof TONES] ?? 'slate'}>
											{r.status === 'ends' ? 'cancelled at period end' : r.status}
										</Badge>
									</td>
									<td className="px-4 py-3 whitespace-nowrap text-slate-700">
										{r.renewal
											? `${r.renews ? 'Renews' : r.live ? 'Ends' : 'Ended'} ${r.renewal}`
											: '—'}
									</td>
									<td className="px-4 py-3 whitespace-nowrap text-slate-700">
										{r.price ? `${r.price} a month` : '—'}
									</td>
									{canChange ? (
										<td className="px-4 py-3 text-right whitespace-nowrap">
											{!r.live ? (
												<Link
													to={`/checkout?domain=${r.domainId}`}
													className={buttonClasses('primary')}
												>
													Subscribe<span className="sr-only"> {r.name}</span>
												</Link>
											) : (
												<Form method="post">
													<input type="hidden" name="id" value={r.subscriptionId ?? ''} />
													{r.cancelAtPeriodEnd ? (
														<Button type="submit" name="intent" value="resume" variant="secondary">
															Resume<span className="sr-only"> {r.name}</span>
														</Button>
													) : (
														<Button type="submit" name="intent" value="cancel" variant="secondary">
															Cancel at period end<span className="sr-only"> {r.name}</span>
														</Button>
													)}
												</Form>
											)}
										</td>
									) : null}
								</tr>
							))}
						</tbody>
					</table>
				</div>
			)}
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Domain subscriptions')
