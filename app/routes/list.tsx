import type { Route } from './+types/list'
import { LEADS_BULK_FORM, LeadsBulkToolbar } from '../components/lists/leads-bulk.tsx'
import { ListPage } from '../components/lists/list-page.tsx'
import { requestContext } from '../context.server.ts'
import { listCostBreakdown } from '../services/billing/credit-history.server.ts'
import { findBulkAction } from '../services/bulk/bulk-actions.server.ts'
import { newFormKey } from '../services/idempotency/form-submissions.server.ts'
import { leadsBulkForm } from '../services/lists/bulk-forms.server.ts'
import { leadBulk, moveTargets } from '../services/lists/leads-bulk.server.ts'
import { loadListPage } from '../services/lists/list-page.server.ts'
import { tablePreferences } from '../services/tables/preferences.server.ts'
import { readFormData } from '../utils/form-data.server.ts'
import { pageTitle } from '../utils/meta.ts'

// A lead list's page: the page is app/components/lists/list-page.tsx, its loader
// app/services/lists/list-page.server.ts, both told the kind of list (decision 0072); its
// action is the leads' bulk form (decision 0089).

export async function loader({ request, params, context }: Route.LoaderArgs) {
	const { account } = context.get(requestContext)
	const url = new URL(request.url)
	const bulkId = url.searchParams.get('bulk')
	// the cost reads the account's own ledger lines: an unknown list costs 0 and 404s below
	const [page, cost, preferences] = await Promise.all([
		loadListPage('leads', account, params.listId, request),
		account?.accountId ? listCostBreakdown(account.accountId, 'leads', params.listId) : undefined,
		account ? tablePreferences(account.user.id, 'leads') : undefined,
	])
	const { q, status } = page.query
	const [targets, bulk, matching] = await Promise.all([
		moveTargets(account, page.list.id),
		bulkId ? findBulkAction(account, bulkId) : null,
		// what "all matching this filter" takes: the list's count, the search's, or a count of
		// the email status filter (on its index)
		!q && !status
			? page.list.found
			: q && page.matching && !page.matching.more
				? page.matching.count
				: leadBulk.count(account!, { list: page.list.id, q, status: status ?? '' }),
	])
	url.searchParams.delete('bulk')
	return {
		...page,
		cost,
		preferences: preferences && { table: 'leads', ...preferences },
		moveTargets: targets,
		bulkMatching: matching,
		formKey: newFormKey(),
		bulk: bulk ? { ...bulk, label: leadBulk.actions[bulk.action]?.label ?? bulk.action } : null,
		closeBulk: `${url.pathname}${url.search}`,
	}
}

export async function action({ request, params, context }: Route.ActionArgs) {
	const { account } = context.get(requestContext)
	return leadsBulkForm(account, params.listId, await readFormData(request))
}

export default function List({ loaderData, actionData }: Route.ComponentProps) {
	const { bulk } = loaderData
	return (
		<ListPage
			loaderData={loaderData}
			cost={loaderData.cost}
			preferences={loaderData.preferences}
			bulk={{
				formId: LEADS_BULK_FORM,
				status: bulk,
				closeTo: loaderData.closeBulk,
				toolbar: (
					<LeadsBulkToolbar
						formKey={loaderData.formKey}
						targets={loaderData.moveTargets}
						matching={loaderData.bulkMatching}
						filter={{ q: loaderData.query.q, status: loaderData.query.status ?? '' }}
						lastResult={actionData?.result}
					/>
				),
			}}
		/>
	)
}

export const meta: Route.MetaFunction = ({ loaderData, matches }) =>
	pageTitle(matches, loaderData?.list.name ?? 'List')
