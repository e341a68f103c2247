import type { Route } from './+types/enrich-company-list'
import { EnrichPage } from '../components/enrichments/enrich-page.tsx'
import { requestContext } from '../context.server.ts'
import { enrichPageAction, loadEnrichPage } from '../services/enrichments/enrich-page.server.ts'
import { companyColumns } from '../services/enrichments/enrichments.server.ts'
import { runResults } from '../services/enrichments/start-enrichment.server.ts'
import { findCompanyList } from '../services/lists/find-list.server.ts'
import { actingAccount } from '../services/workspaces/access.server.ts'
import { pageTitle } from '../utils/meta.ts'

// The enrich page of a company list (decision 0039): the lead list's enrich page, run on the
// list's companies; the answers become columns of the companies. The page itself is
// app/components/enrichments/enrich-page.tsx, its loader and action
// app/services/enrichments/enrich-page.server.ts.

export async function loader({ request, params, context }: Route.LoaderArgs) {
	const account = actingAccount(context.get(requestContext).account)
	const { list } = await findCompanyList(account, params.listId)
	return loadEnrichPage(account, request, list, {
		source: 'companies',
		columns: companyColumns,
		results: (...page) => runResults('companies', ...page),
	})
}

export async function action({ request, params, context }: Route.ActionArgs) {
	const { account } = context.get(requestContext)
	// another account's list is a 404 before anything is read from the form
	await findCompanyList(account, params.listId)
	return enrichPageAction(account, request, {
		listId: params.listId,
		source: 'companies',
		path: `/company-lists/${params.listId}/enrich`,
		once: { run: 'enrich-companies-run', retry: 'enrich-companies-retry' },
		noun: (rows) => (rows === 1 ? 'company' : 'companies'),
	})
}

export default function EnrichCompanyList({ loaderData, actionData }: Route.ComponentProps) {
	return (
		<EnrichPage
			kind="companies"
			loaderData={loaderData}
			actionData={actionData}
			rowColumns={[
				{ label: 'Name', value: (company) => company.name },
				{ label: 'Domain', value: (company) => company.domain, nowrap: true },
			]}
		/>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Enrich company list')
