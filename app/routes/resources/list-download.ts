import type { Route } from './+types/list-download'
import { requestContext } from '../../context.server.ts'
import { guards } from '../../middleware/route-guards.server.ts'
import { readSelection } from '../../services/bulk/bulk-actions.server.ts'
import {
	csvResponse,
	streamCompanyListCsv,
	streamCompanySelectionCsv,
	streamLeadSelectionCsv,
	streamListCsv,
} from '../../services/lists/export.server.ts'

// GET /lists/:listId/download[?kind=companies]: the list as a streamed CSV file. Needs what
// the list pages need (signed in, a subscription); another account's list is a 404.
// ?selection=<id>: only the leads (or, with kind=companies, the companies) chosen in the
// page's bulk form (decisions 0089, 0101).
export async function loader({ request, params, context }: Route.LoaderArgs) {
	const { account } = context.get(requestContext)
	guards.auth({ request, account })
	guards.subscription({ request, account })
	const search = new URL(request.url).searchParams
	const companies = search.get('kind') === 'companies'
	if (search.has('selection') && companies) {
		// a company list's bulk export (decision 0101)
		const selection = await readSelection(account, 'companies', search.get('selection'))
		return csvResponse(await streamCompanySelectionCsv(account, params.listId, selection))
	}
	if (search.has('selection')) {
		const selection = await readSelection(account, 'leads', search.get('selection'))
		return csvResponse(await streamLeadSelectionCsv(account, params.listId, selection))
	}
	const download = companies
		? await streamCompanyListCsv(account, params.listId)
		: await streamListCsv(account, params.listId)
	return csvResponse(download)
}
