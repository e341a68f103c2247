import type { Route } from './+types/company-list'
import { ListPage } from '../components/lists/list-page.tsx'
import { requestContext } from '../context.server.ts'
import { listCostBreakdown } from '../services/billing/credit-history.server.ts'
import { loadListPage } from '../services/lists/list-page.server.ts'
import { pageTitle } from '../utils/meta.ts'

// A company list's page: the lead list's page (list.tsx) told it lists companies
// (decision 0072).

export async function loader({ request, params, context }: Route.LoaderArgs) {
	const { account } = context.get(requestContext)
	// the cost reads the account's own ledger lines: an unknown list costs 0 and 404s below
	const [page, cost] = await Promise.all([
		loadListPage('companies', account, params.listId, request),
		account?.accountId
			? listCostBreakdown(account.accountId, 'companies', params.listId)
			: undefined,
	])
	return { ...page, cost }
}

export default function CompanyList({ loaderData }: Route.ComponentProps) {
	return <ListPage loaderData={loaderData} cost={loaderData.cost} />
}

export const meta: Route.MetaFunction = ({ loaderData, matches }) =>
	pageTitle(matches, loaderData?.list.name ?? 'Company list')
