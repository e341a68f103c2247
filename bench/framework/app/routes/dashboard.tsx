// The app's dashboard (app/routes/dashboard.tsx), its markup copied as is, over constant data.
import { Link } from 'react-router'
import { Card, PageHeader } from '../../../../app/components/ui/card.tsx'
import { pageTitle } from '../../../../app/utils/meta.ts'
import { dashboardData } from '../data.ts'

export function loader() {
	return dashboardData
}

export default function Dashboard({ loaderData }: { loaderData: typeof dashboardData }) {
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

export const meta = ({ matches }: { matches: Parameters<typeof pageTitle>[0] }) =>
	pageTitle(matches, 'Dashboard')
