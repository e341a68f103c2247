import type { Route } from './+types/lists-export'
import { requestContext } from '../../context.server.ts'
import { guards } from '../../middleware/route-guards.server.ts'
import { readSelection } from '../../services/bulk/bulk-actions.server.ts'
import { exportKind } from '../../services/lists/bulk-forms.server.ts'
import { csvResponse, streamListsCsv } from '../../services/lists/export.server.ts'
import { redirectOnFormError } from '../../utils/form-errors.server.ts'

// GET /lists/export?selection=<id>: the lists chosen on /scrape (decision 0089) as one
// streamed CSV with a `list` column; only the account's lists, in the user's workspaces.
export async function loader({ request, context }: Route.LoaderArgs) {
	const { account } = context.get(requestContext)
	guards.auth({ request, account })
	guards.subscription({ request, account })
	const selection = await readSelection(
		account,
		'lists',
		new URL(request.url).searchParams.get('selection'),
	)
	try {
		const { kind, listIds } = await exportKind(account, selection)
		return csvResponse(await streamListsCsv(kind, listIds))
	} catch (error) {
		return redirectOnFormError(error, '/scrape')
	}
}
