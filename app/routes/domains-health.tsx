import { HeartPulse } from 'lucide-react'
import { data, Form, Link } from 'react-router'
import type { Route } from './+types/domains-health'
import { HealthCard } from '../components/domains/health-card.tsx'
import { Button } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { SortLink } from '../components/ui/data-table.tsx'
import { PageLinks } from '../components/ui/page-links.tsx'
import { StatCard } from '../components/ui/stat-card.tsx'
import { requestContext } from '../context.server.ts'
import {
	accountHealth,
	HEALTH_SORTS,
	requestHealthChecks,
} from '../services/domain-health/health.server.ts'
import { HealthActionSchema } from '../services/domain-health/schemas.ts'
import { canChangeDomains } from '../services/workspaces/access.server.ts'
import { domainAccount } from '../services/domains/access.server.ts'
import { redirectOnFormError } from '../utils/form-errors.server.ts'
import { readFormData } from '../utils/form-data.server.ts'
import { requestLocale } from '../utils/locale.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { readSort } from '../utils/table-sort.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { useLiveRefresh } from '../utils/use-live-refresh.ts'

const PAGE_SIZE = 50

/** Issue 38: every domain's health, the worst first, with the records to fix. */
export async function loader({ request, context }: Route.LoaderArgs) {
	const { account } = context.get(requestContext)
	const acting = domainAccount(account, 'view')
	const url = new URL(request.url)
	const page = Math.max(1, Number.parseInt(url.searchParams.get('page') ?? '1', 10) || 1)
	// ascending grade: the worst first
	const sort = readSort(url.searchParams, HEALTH_SORTS, { sort: 'grade', dir: 'asc' })
	const { domains, counts } = await accountHealth(account, {
		limit: PAGE_SIZE,
		offset: (page - 1) * PAGE_SIZE,
		sort,
	})
	const total = Object.values(counts).reduce((a, b) => a + b, 0)
	const pageHref = (n: number) => {
		const params = new URLSearchParams(url.searchParams)
		params.set('page', String(n))
		return `/domains/health?${params}`
	}
	return {
		canChange: canChangeDomains(acting),
		locale: requestLocale(request),
		domains,
		counts,
		sort,
		page: {
			first: (page - 1) * PAGE_SIZE + 1,
			previous: page > 1 ? pageHref(page - 1) : null,
			next: page * PAGE_SIZE < total ? pageHref(page + 1) : null,
		},
		total,
	}
}

export async function action({ request, context }: Route.ActionArgs) {
	const { account } = context.get(requestContext)
	const parsed = HealthActionSchema.safeParse(Object.fromEntries(await readFormData(request)))
	if (!parsed.success || parsed.data.intent !== 'check-all')
		throw data('Unknown action', { status: 400 })
	try {
		const count = await requestHealthChecks(account)
		return redirectWithSuccess('/domains/health', `Checking the health of ${count} domains`)
	} catch (error) {
		return redirectOnFormError(error, '/domains/health')
	}
}

export default function DomainsHealth({ loaderData }: Route.ComponentProps) {
	const { domains, counts, canChange, locale, total, sort } = loaderData
	useLiveRefresh(
		domains.some((d) => d.pending),
		3000,
	)
	return (
		<>
			<PageHeader
				title="Domain health"
				icon={<HeartPulse />}
				description="Whether each domain can send well, the worst first, with the exact records to fix."
				actions={
					<div className="flex flex-wrap gap-2">
						<Link
							to="/domains"
							className="self-center text-sm font-semibold text-indigo-700 hover:underline"
						>
							Back to domains
						</Link>
						{canChange && total ? (
							<Form method="post">
								<Button type="submit" name="intent" value="check-all" variant="secondary">
									Check all now
								</Button>
							</Form>
						) : null}
					</div>
				}
			/>
			{total === 0 ? (
				<Card>
					<p className="text-sm text-slate-600">No domains yet.</p>
				</Card>
			) : (
				<>
					<div className="mb-4 grid grid-cols-2 gap-3 sm:grid-cols-4">
						<StatCard label="Failing" value={counts.failing ?? 0} />
						<StatCard label="Need attention" value={counts.warning ?? 0} />
						<StatCard label="Could not check" value={counts.unknown ?? 0} />
						<StatCard label="Healthy" value={counts.healthy ?? 0} />
					</div>
					<div className="mb-3 flex flex-wrap items-center justify-between gap-x-6 gap-y-2">
						<p className="text-sm text-slate-600">
							The daily check runs every morning (UTC). Not checked yet: {counts.unchecked ?? 0}.
						</p>
						<nav
							aria-label="Sort domains"
							className="flex flex-wrap items-center gap-x-4 text-sm text-slate-600"
						>
							<span aria-hidden>Sort by</span>
							<ul className="flex flex-wrap items-center gap-x-4">
								<li>
									<SortLink sortKey="grade" label="Grade" sort={sort} />
								</li>
								<li>
									<SortLink sortKey="name" label="Domain" sort={sort} />
								</li>
								<li>
									<SortLink sortKey="checked" label="Last checked" sort={sort} />
								</li>
							</ul>
						</nav>
					</div>
					<div className="space-y-4" data-testid="health-list">
						{domains.map((d) => (
							<HealthCard
								key={d.id}
								health={d}
								locale={locale}
								titleLink={`/domains/${d.id}/health`}
							/>
						))}
					</div>
					<PageLinks
						label="Domain health pages"
						statusTestId="health-page-status"
						first={loaderData.page.first}
						count={domains.length}
						total={total}
						previous={loaderData.page.previous}
						next={loaderData.page.next}
					/>
				</>
			)}
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Domain health')
