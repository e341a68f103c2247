import { Link } from 'react-router'
import type { Route } from './+types/dashboard'
import { CreditsChart } from '../components/dashboard/credits-chart.tsx'
import { isRunning, JobStatusBadge, ProgressBar } from '../components/lists/job-status.tsx'
import { buttonClasses } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { requestContext } from '../context.server.ts'
import { getDashboard } from '../services/dashboard/get-dashboard.server.ts'
import { hasScreen } from '../routes.ts'
import { pageTitle } from '../utils/meta.ts'
import { useLiveRefresh } from '../utils/use-live-refresh.ts'

export async function loader({ context }: Route.LoaderArgs) {
	const { account: maybeAccount, currentWorkspaceId } = context.get(requestContext)
	const account = maybeAccount!
	// one statement: plan name, jobs, lists and credits spent
	const { planName, jobs, lists, spent } = await getDashboard(account, currentWorkspaceId)
	return {
		plan: account.isLTD
			? { name: 'Lifetime deal', detail: 'Your lifetime deal includes every feature.' }
			: planName
				? {
						name: planName,
						detail: account.subscription?.expire_date
							? `${account.subscription.cancel_at_period_end ? 'Ends' : 'Renews'} on ${new Date(account.subscription.expire_date).toLocaleDateString('en', { dateStyle: 'medium' })}`
							: undefined,
					}
				: null,
		credits: account.creditBalance,
		canBuyCredits: !account.isTeamMember && hasScreen('purchase'),
		canManagePlan: !account.isTeamMember && hasScreen('subscription'),
		quickActions: QUICK_ACTIONS.filter((a) => hasScreen(a.screen)).map(({ to, label }) => ({
			to,
			label,
		})),
		jobs,
		lists,
		spent,
	}
}

const QUICK_ACTIONS = [
	{ to: '/create-leads', label: 'Create leads', screen: 'create-leads' },
	{ to: '/create-companies', label: 'Create companies', screen: 'create-companies' },
	{ to: '/file-list', label: 'Import a CSV', screen: 'file-list' },
	{ to: '/enrichments', label: 'Enrichments', screen: 'enrichments' },
	{ to: '/scrape', label: 'All lists', screen: 'scrape' },
] as const

const JOB_KIND = {
	'lead-search': 'Lead search',
	'csv-import': 'CSV import',
	'company-search': 'Company search',
	enrichment: 'Enrichment',
	upload: 'EmailBison upload',
} as const

const when = (iso: string) =>
	new Date(iso).toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short' })

export default function Dashboard({ loaderData }: Route.ComponentProps) {
	const { plan, credits, canBuyCredits, canManagePlan, quickActions, jobs, lists, spent } =
		loaderData
	const running = jobs.some((j) => isRunning(j.status))
	useLiveRefresh(running, 2000)
	return (
		<>
			<PageHeader
				title="Dashboard"
				description="Your plan, your credits and what is running."
				actions={
					<nav aria-label="Quick actions" className="flex flex-wrap gap-2">
						{quickActions.map((a, i) => (
							<Link
								key={a.to}
								to={a.to}
								className={buttonClasses(i === 0 ? 'primary' : 'secondary')}
							>
								{a.label}
							</Link>
						))}
					</nav>
				}
			/>
			<div className="grid gap-6 lg:grid-cols-3">
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
				<Card>
					<h2 className="text-sm font-semibold text-slate-600">Credits spent</h2>
					<div className="mt-2">
						<CreditsChart days={spent} />
					</div>
				</Card>
			</div>
			<div className="mt-6 grid gap-6 lg:grid-cols-2">
				<Card>
					<div className="flex items-center justify-between gap-2">
						<h2 className="text-lg font-semibold text-slate-900">Jobs</h2>
						{running ? (
							<Link
								to="/"
								reloadDocument
								className="text-sm font-medium text-indigo-700 hover:underline"
							>
								Refresh
							</Link>
						) : null}
					</div>
					{jobs.length === 0 ? (
						<p className="mt-2 text-sm text-slate-600">
							Nothing has run yet. Start with an Apollo search on{' '}
							<Link to="/create-leads" className="font-medium text-indigo-700 underline">
								Create leads
							</Link>
							.
						</p>
					) : (
						<ul className="mt-3 divide-y divide-slate-100">
							{jobs.map((job) => (
								<li
									key={job.id}
									className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2"
									data-testid="dashboard-job"
								>
									<span className="min-w-0 flex-1">
										<Link to={job.href} className="font-medium text-indigo-700 hover:underline">
											{job.name}
										</Link>
										<span className="block text-xs text-slate-500">
											{JOB_KIND[job.kind]} · {when(job.createdAt)}
										</span>
									</span>
									<JobStatusBadge status={job.status} error={job.error} />
									{isRunning(job.status) ? (
										<ProgressBar value={job.progress} label={`Progress of ${job.name}`} />
									) : null}
								</li>
							))}
						</ul>
					)}
				</Card>
				<Card>
					<h2 className="text-lg font-semibold text-slate-900">Recent lists</h2>
					{lists.length === 0 ? (
						<p className="mt-2 text-sm text-slate-600">No lists yet.</p>
					) : (
						<ul className="mt-3 divide-y divide-slate-100">
							{lists.map((list) => (
								<li
									key={list.id}
									className="flex items-center gap-3 py-2"
									data-testid="dashboard-list"
								>
									<span className="min-w-0 flex-1">
										<Link to={list.href} className="font-medium text-indigo-700 hover:underline">
											{list.name}
										</Link>
										<span className="block text-xs text-slate-500">
											{list.kind === 'leads' ? 'Leads' : 'Companies'} · {when(list.createdAt)}
										</span>
									</span>
									<span className="text-sm text-slate-700 tabular-nums">
										{list.found.toLocaleString('en')}{' '}
										{list.kind === 'leads'
											? list.found === 1
												? 'lead'
												: 'leads'
											: list.found === 1
												? 'company'
												: 'companies'}
									</span>
								</li>
							))}
						</ul>
					)}
				</Card>
			</div>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Dashboard')
