import { Link } from 'react-router'
import type { Route } from './+types/dashboard'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { requestContext } from '../context.server.ts'
import { getPricePlan } from '../services/billing/plans.server.ts'
import { hasScreen } from '../routes.ts'
import { pageTitle } from '../utils/meta.ts'

export async function loader({ context }: Route.LoaderArgs) {
	const account = context.get(requestContext).account!
	const plan = account.activePlan ? await getPricePlan(account.activePlan) : undefined
	return {
		plan: account.isLTD
			? { name: 'Lifetime deal', detail: 'Your lifetime deal includes every feature.' }
			: plan
				? {
						name: plan.name,
						detail: account.subscription?.expire_date
							? `${account.subscription.cancel_at_period_end ? 'Ends' : 'Renews'} on ${new Date(account.subscription.expire_date).toLocaleDateString('en', { dateStyle: 'medium' })}`
							: undefined,
					}
				: null,
		credits: account.creditBalance,
		canBuyCredits: !account.isTeamMember && hasScreen('purchase'),
		canManagePlan: !account.isTeamMember && hasScreen('subscription'),
	}
}

export default function Dashboard({ loaderData }: Route.ComponentProps) {
	const { plan, credits, canBuyCredits, canManagePlan } = loaderData
	return (
		<>
			<PageHeader title="Dashboard" description="Your plan, your credits and what is running." />
			<div className="grid gap-6 sm:grid-cols-2">
				<Card>
					<h2 className="text-sm font-semibold text-slate-600">Plan</h2>
					<p className="mt-2 text-2xl font-bold text-slate-900" data-testid="plan-name">
						{plan?.name ?? 'No active plan'}
					</p>
					{plan?.detail ? <p className="mt-1 text-sm text-slate-600">{plan.detail}</p> : null}
					{canManagePlan ? (
						<Link
							to="/subscription"
							className="mt-4 inline-block text-sm font-semibold text-indigo-700 hover:underline"
						>
							Manage subscription
						</Link>
					) : null}
				</Card>
				<Card>
					<h2 className="text-sm font-semibold text-slate-600">Credits</h2>
					<p className="mt-2 text-2xl font-bold text-slate-900" data-testid="credits">
						{credits.toLocaleString('en')}
					</p>
					<p className="mt-1 text-sm text-slate-600">
						Spent on scraping and AI enrichment run with platform keys.
					</p>
					{canBuyCredits ? (
						<Link
							to="/purchase"
							className="mt-4 inline-block text-sm font-semibold text-indigo-700 hover:underline"
						>
							Buy credits
						</Link>
					) : null}
				</Card>
			</div>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Dashboard')
