import type { Route } from './+types/company-list'
import { COMPANIES_BULK_FORM, CompaniesBulkToolbar } from '../components/lists/companies-bulk.tsx'
import { ListPage } from '../components/lists/list-page.tsx'
import { requestContext } from '../context.server.ts'
import { listCostBreakdown } from '../services/billing/credit-history.server.ts'
import { findBulkAction } from '../services/bulk/bulk-actions.server.ts'
import { newFormKey } from '../services/idempotency/form-submissions.server.ts'
import { companiesBulkForm } from '../services/lists/bulk-forms.server.ts'
import { companyBulk } from '../services/lists/companies-bulk.server.ts'
import { loadListPage } from '../services/lists/list-page.server.ts'
import { tablePreferences } from '../services/tables/preferences.server.ts'
import { readFormData } from '../utils/form-data.server.ts'
import { pageTitle } from '../utils/meta.ts'

// A company list's page: the lead list's page (list.tsx) told it lists companies
// (decision 0072); its action is the companies' bulk form (decision 0101).

export async function loader({ request, params, context }: Route.LoaderArgs) {
	const { account } = context.get(requestContext)
	const url = new URL(request.url)
	const bulkId = url.searchParams.get('bulk')
	// the cost reads the account's own ledger lines: an unknown list costs 0 and 404s below
	const [page, cost, preferences] = await Promise.all([
		loadListPage('companies', account, params.listId, request),
		account?.accountId
			? listCostBreakdown(account.accountId, 'companies', params.listId)
			: undefined,
		account ? tablePreferences(account.user.id, 'companies') : undefined,
	])
	const { q } = page.query
	const [bulk, matching] = await Promise.all([
		bulkId ? findBulkAction(account, bulkId) : null,
		// what "all matching this filter" takes: the list's count, or the search's
		q ? companyBulk.count(account!, { list: page.list.id, q }) : page.list.found,
	])
	url.searchParams.delete('bulk')
	return {
		...page,
		cost,
		preferences: preferences && { table: 'companies', ...preferences },
		bulkMatching: matching,
		formKey: newFormKey(),
		bulk: bulk ? { ...bulk, label: companyBulk.actions[bulk.action]?.label ?? bulk.action } : null,
		closeBulk: `${url.pathname}${url.search}`,
	}
}

export async function action({ request, params, context }: Route.ActionArgs) {
	const { account } = context.get(requestContext)
	return companiesBulkForm(account, params.listId, await readFormData(request))
}

export default function CompanyList({ loaderData: page, actionData }: Route.ComponentProps) {
	const toolbar = (
		<CompaniesBulkToolbar
			formKey={page.formKey}
			matching={page.bulkMatching}
			q={page.query.q}
			lastResult={actionData?.result}
		/>
	)
	const bulk = { formId: COMPANIES_BULK_FORM, toolbar, status: page.bulk, closeTo: page.closeBulk }
	return <ListPage loaderData={page} cost={page.cost} preferences={page.preferences} bulk={bulk} />
}

export const meta: Route.MetaFunction = ({ loaderData, matches }) =>
	pageTitle(matches, loaderData?.list.name ?? 'Company list')
