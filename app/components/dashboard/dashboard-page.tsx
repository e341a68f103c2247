import { Link } from 'react-router'
import { CreditsChart } from './credits-chart.tsx'
import { isRunning, JobStatusBadge, ProgressBar } from '../lists/job-status.tsx'
import { buttonClasses } from '../ui/button.tsx'
import { Card, PageHeader } from '../ui/card.tsx'
import { LocalTime } from '../ui/local-time.tsx'
import type {
	DashboardJob,
	DashboardList,
	SpentDay,
} from '../../services/dashboard/get-dashboard.server.ts'
import { useLiveRefresh } from '../../utils/use-live-refresh.ts'

/** What the dashboard's loader gives its page. */
export type DashboardData = {
	plan: { name: string; detail: string | undefined } | null
	credits: number
	canBuyCredits: boolean
	canManagePlan: boolean
	quickActions: { to: string; label: string }[]
	jobs: DashboardJob[]
	lists: DashboardList[]
	spent: SpentDay[]
}

const JOB_KIND = {
	'lead-search': 'Lead search',
	'csv-import': 'CSV import',
	'company-search': 'Company search',
	enrichment: 'Enrichment',
	'company-enrichment': 'Company enrichment',
	upload: 'EmailBison upload',
} as const

// Made once, not per call (toLocaleString builds a new Intl formatter each time).
const numberFormat = new Intl.NumberFormat('en')

/** The dashboard's page, apart from its loader (the bench's framework ceiling renders it too). */
export function DashboardPage({ loaderData }: { loaderData: DashboardData }) {
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
			<div className="grid gap-6 lg:grid-cols-4">
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
						{numberFormat.format(credits)}
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
				<Card className="lg:col-span-2">
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
											{JOB_KIND[job.kind]} · <LocalTime value={job.createdAt} />
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
											{list.kind === 'leads' ? 'Leads' : 'Companies'} ·{' '}
											<LocalTime value={list.createdAt} />
										</span>
									</span>
									<span className="text-sm text-slate-700 tabular-nums">
										{numberFormat.format(list.found)}{' '}
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
