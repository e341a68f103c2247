import type { Route } from './+types/company-list'
import { ListPage } from '../components/lists/list-page.tsx'
import { requestContext } from '../context.server.ts'
import { loadListPage } from '../services/lists/list-page.server.ts'
import { pageTitle } from '../utils/meta.ts'

// A company list's page: the lead list's page (list.tsx) told it lists companies
// (decision 0072).

export async function loader({ request, params, context }: Route.LoaderArgs) {
	return loadListPage('companies', context.get(requestContext).account, params.listId, request)
}

export default function CompanyList({ loaderData }: Route.ComponentProps) {
	return <ListPage loaderData={loaderData} />
}

export const meta: Route.MetaFunction = ({ loaderData, matches }) =>
	pageTitle(matches, loaderData?.list.name ?? 'Company list')
