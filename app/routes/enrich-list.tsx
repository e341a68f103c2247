import type { Route } from './+types/enrich-list'
import { EnrichPage } from '../components/enrichments/enrich-page.tsx'
import { requestContext } from '../context.server.ts'
import { enrichPageAction, loadEnrichPage } from '../services/enrichments/enrich-page.server.ts'
import { knownColumns } from '../services/enrichments/enrichments.server.ts'
import { runResults } from '../services/enrichments/start-enrichment.server.ts'
import { findLeadList } from '../services/lists/find-list.server.ts'
import { actingAccount } from '../services/workspaces/access.server.ts'
import { pageTitle } from '../utils/meta.ts'

// The enrich page of a lead list: the page itself is app/components/enrichments/enrich-page.tsx,
// its loader and action app/services/enrichments/enrich-page.server.ts.

export async function loader({ request, params, context }: Route.LoaderArgs) {
	const account = actingAccount(context.get(requestContext).account)
	const { list } = await findLeadList(account, params.listId)
	return loadEnrichPage(account, request, list, {
		source: 'leads',
		columns: knownColumns,
		results: (...page) => runResults('leads', ...page),
	})
}

export async function action({ request, params, context }: Route.ActionArgs) {
	const { account } = context.get(requestContext)
	// another account's list is a 404 before anything is read from the form
	await findLeadList(account, params.listId)
	return enrichPageAction(account, request, {
		listId: params.listId,
		source: 'leads',
		path: `/lists/${params.listId}/enrich`,
		once: { run: 'enrich-run', retry: 'enrich-retry' },
		noun: (rows) => (rows === 1 ? 'lead' : 'leads'),
	})
}

export default function EnrichList({ loaderData, actionData }: Route.ComponentProps) {
	return (
		<EnrichPage
			kind="leads"
			loaderData={loaderData}
			actionData={actionData}
			rowColumns={[
				{ label: 'Email', value: (lead) => lead.email, nowrap: true },
				{ label: 'Name', value: (lead) => lead.name },
			]}
		/>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Enrich list')
