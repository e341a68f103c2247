import type { Route } from './+types/list-download'
import { requestContext } from '../../context.server.ts'
import { guards } from '../../middleware/route-guards.server.ts'
import { readSelection } from '../../services/bulk/bulk-actions.server.ts'
import {
	csvResponse,
	streamCompanyListCsv,
	streamLeadSelectionCsv,
	streamListCsv,
} from '../../services/lists/export.server.ts'

// GET /lists/:listId/download[?kind=companies]: the list as a streamed CSV file. Needs what
// the list pages need (signed in, a subscription); another account's list is a 404.
// ?selection=<id>: only the leads chosen in the page's bulk form (decision 0089).
export async function loader({ request, params, context }: Route.LoaderArgs) {
	const { account } = context.get(requestContext)
	guards.auth({ request, account })
	guards.subscription({ request, account })
	const search = new URL(request.url).searchParams
	if (search.has('selection')) {
		const selection = await readSelection(account, 'leads', search.get('selection'))
		return csvResponse(await streamLeadSelectionCsv(account, params.listId, selection))
	}
	const download =
		search.get('kind') === 'companies'
			? await streamCompanyListCsv(account, params.listId)
			: await streamListCsv(account, params.listId)
	return csvResponse(download)
}
