import type { Route } from './+types/list-import-errors-download'
import { requestContext } from '../../context.server.ts'
import { guards } from '../../middleware/route-guards.server.ts'
import { streamImportErrorsCsv } from '../../services/imports/import-report.server.ts'
import { csvResponse } from '../../services/lists/export.server.ts'

// GET /lists/:listId/import-report/download: every skipped row of an import, as CSV.
export async function loader({ request, params, context }: Route.LoaderArgs) {
	const { account } = context.get(requestContext)
	guards.auth({ request, account })
	guards.subscription({ request, account })
	return csvResponse(await streamImportErrorsCsv(account, params.listId))
}
