import type { Route } from './+types/do-not-contact-download'
import { requestContext } from '../../context.server.ts'
import { guards } from '../../middleware/route-guards.server.ts'
import { entriesCsv } from '../../services/do-not-contact/entries.server.ts'
import { csvDownloadHeaders, linesStream } from '../../utils/csv-download.server.ts'

// GET /do-not-contact/download: the entries this user sees, as CSV (formula-safe), streamed.
export async function loader({ request, context }: Route.LoaderArgs) {
	const { account } = context.get(requestContext)
	guards.auth({ request, account })
	guards.subscription({ request, account })
	return new Response(linesStream(entriesCsv(account)), {
		headers: csvDownloadHeaders('do-not-contact.csv'),
	})
}
