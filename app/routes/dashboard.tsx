import type { Route } from './+types/dashboard'
import { DashboardPage } from '../components/dashboard/dashboard-page.tsx'
import { readWithContextOf, requestContext, withContextRead } from '../context.server.ts'
import { dashboardRead, getDashboard } from '../services/dashboard/get-dashboard.server.ts'
import { pageTitle } from '../utils/meta.ts'

// Every user's first page: read in the request context's statement (decisions 0054, 0075).
export const loader = withContextRead(dashboardRead, async ({ context }: Route.LoaderArgs) => {
	const request = context.get(requestContext)
	const account = request.account!
	// read with the request context (decision 0054), or in one statement of its own: plan name,
	// jobs, lists and credits spent
	const { planName, jobs, lists, spent } = await getDashboard(account, request.currentWorkspaceId, {
		readWithContext: readWithContextOf(request, dashboardRead),
	})
	return {
		plan: account.isLTD
			? { name: 'Lifetime deal', detail: 'Your lifetime deal includes every feature.' }
			: planName
				? {
						name: planName,
						detail: account.subscription?.expire_date
							? `${account.subscription.cancel_at_period_end ? 'Ends' : 'Renews'} on ${renewalDate.format(new Date(account.subscription.expire_date))}`
							: undefined,
					}
				: null,
		credits: account.creditBalance,
		canBuyCredits: !account.isTeamMember,
		canManagePlan: !account.isTeamMember,
		quickActions: [...QUICK_ACTIONS],
		jobs,
		lists,
		spent,
	}
})

// One formatter for the process: toLocaleDateString builds a new Intl formatter on every call.
const renewalDate = new Intl.DateTimeFormat('en', { dateStyle: 'medium' })

const QUICK_ACTIONS = [
	{ to: '/create-leads', label: 'Create leads' },
	{ to: '/create-companies', label: 'Create companies' },
	{ to: '/file-list', label: 'Import a CSV' },
	{ to: '/enrichments', label: 'Enrichments' },
	{ to: '/scrape', label: 'All lists' },
] as const

export default function Dashboard({ loaderData }: Route.ComponentProps) {
	return <DashboardPage loaderData={loaderData} />
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Dashboard')
