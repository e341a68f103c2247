import type { Route } from './+types/upload-rejected'
import { requestContext } from '../../context.server.ts'
import { guards } from '../../middleware/route-guards.server.ts'
import {
	findUpload,
	rejectedCsv,
	rejectedCsvName,
} from '../../services/emailbison/uploads.server.ts'
import { csvDownloadHeaders, linesStream } from '../../utils/csv-download.server.ts'

// GET /uploads/:uploadId/rejected: the rows EmailBison rejected, with the reasons, as CSV
// (formula-safe). Another account's upload is a 404.
export async function loader({ request, params, context }: Route.LoaderArgs) {
	const { account } = context.get(requestContext)
	guards.auth({ request, account })
	guards.subscription({ request, account })
	const upload = await findUpload(account, params.uploadId)
	return new Response(linesStream(rejectedCsv(upload.id)), {
		headers: csvDownloadHeaders(rejectedCsvName(upload.campaign_name)),
	})
}
