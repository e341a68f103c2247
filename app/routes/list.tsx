import type { Route } from './+types/list'
import { ListPage } from '../components/lists/list-page.tsx'
import { requestContext } from '../context.server.ts'
import { listCostBreakdown } from '../services/billing/credit-history.server.ts'
import { loadListPage } from '../services/lists/list-page.server.ts'
import { pageTitle } from '../utils/meta.ts'

// A lead list's page: the page is app/components/lists/list-page.tsx, its loader
// app/services/lists/list-page.server.ts, both told the kind of list (decision 0072).

export async function loader({ request, params, context }: Route.LoaderArgs) {
	const { account } = context.get(requestContext)
	// the cost reads the account's own ledger lines: an unknown list costs 0 and 404s below
	const [page, cost] = await Promise.all([
		loadListPage('leads', account, params.listId, request),
		account?.accountId ? listCostBreakdown(account.accountId, 'leads', params.listId) : undefined,
	])
	return { ...page, cost }
}

export default function List({ loaderData }: Route.ComponentProps) {
	return <ListPage loaderData={loaderData} cost={loaderData.cost} />
}

export const meta: Route.MetaFunction = ({ loaderData, matches }) =>
	pageTitle(matches, loaderData?.list.name ?? 'List')
