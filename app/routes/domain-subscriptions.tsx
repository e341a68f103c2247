import { data, Form, Link } from 'react-router'
import type { Route } from './+types/domain-subscriptions'
import { DataTable } from '../components/ui/data-table.tsx'
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

type Row = Route.ComponentProps['loaderData']['rows'][number]

/** Subscribe a domain without one; cancel at period end, or resume, a live one. */
function SubscriptionAction({ row: r }: { row: Row }) {
	if (!r.live) {
		return (
			<Link to={`/checkout?domain=${r.domainId}`} className={buttonClasses('primary')}>
				Subscribe<span className="sr-only"> {r.name}</span>
			</Link>
		)
	}
	return (
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
	)
}

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
				<DataTable
					label="Subscription per domain"
					testId="subscriptions"
					columns={[
						{ key: 'domain', label: 'Domain', rowHeader: true, cell: (r) => r.name },
						{
							key: 'status',
							label: 'Status',
							cell: (r) => (
								<Badge tone={TONES[r.status as keyof typeof TONES] ?? 'slate'}>
									{r.status === 'ends' ? 'cancelled at period end' : r.status}
								</Badge>
							),
						},
						{
							key: 'renewal',
							label: 'Renews or ends',
							nowrap: true,
							cell: (r) =>
								r.renewal ? `${r.renews ? 'Renews' : r.live ? 'Ends' : 'Ended'} ${r.renewal}` : '—',
						},
						{
							key: 'price',
							label: 'Price',
							nowrap: true,
							cell: (r) => (r.price ? `${r.price} a month` : '—'),
						},
						...(canChange
							? [
									{
										key: 'actions',
										label: 'Actions',
										srOnlyLabel: true,
										hideable: false,
										nowrap: true,
										sticky: true,
										align: 'right' as const,
										cell: (r: (typeof rows)[number]) => <SubscriptionAction row={r} />,
									},
								]
							: []),
					]}
					rows={rows}
					rowKey={(r) => r.domainId}
					rowProps={(r) => ({ 'data-domain': r.name })}
				/>
			)}
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Domain subscriptions')
