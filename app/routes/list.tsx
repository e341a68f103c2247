import type { Route } from './+types/list'
import { ListPage } from '../components/lists/list-page.tsx'
import { requestContext } from '../context.server.ts'
import { loadListPage } from '../services/lists/list-page.server.ts'
import { pageTitle } from '../utils/meta.ts'

// A lead list's page: the page is app/components/lists/list-page.tsx, its loader
// app/services/lists/list-page.server.ts, both told the kind of list (decision 0072).

export async function loader({ request, params, context }: Route.LoaderArgs) {
	return loadListPage('leads', context.get(requestContext).account, params.listId, request)
}

export default function List({ loaderData }: Route.ComponentProps) {
	return <ListPage loaderData={loaderData} />
}

export const meta: Route.MetaFunction = ({ loaderData, matches }) =>
	pageTitle(matches, loaderData?.list.name ?? 'List')
