import type { Route } from './+types/list-download'
import { requestContext } from '../../context.server.ts'
import { guards } from '../../middleware/route-guards.server.ts'
import {
	csvResponse,
	streamCompanyListCsv,
	streamListCsv,
} from '../../services/lists/export.server.ts'

// GET /lists/:listId/download[?kind=companies]: the list as a streamed CSV file. Needs what
// the list pages need (signed in, a subscription); another account's list is a 404.
export async function loader({ request, params, context }: Route.LoaderArgs) {
	const { account } = context.get(requestContext)
	guards.auth({ request, account })
	guards.subscription({ request, account })
	const kind = new URL(request.url).searchParams.get('kind')
	const download =
		kind === 'companies'
			? await streamCompanyListCsv(account, params.listId)
			: await streamListCsv(account, params.listId)
	return csvResponse(download)
}
