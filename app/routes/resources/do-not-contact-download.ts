import type { Route } from './+types/do-not-contact-download'
import { requestContext } from '../../context.server.ts'
import { guards } from '../../middleware/route-guards.server.ts'
import { entriesCsv } from '../../services/do-not-contact/entries.server.ts'

// GET /do-not-contact/download: the entries this user sees, as CSV (formula-safe), streamed.
export async function loader({ request, context }: Route.LoaderArgs) {
	const { account } = context.get(requestContext)
	guards.auth({ request, account })
	guards.subscription({ request, account })
	const lines = entriesCsv(account)
	const encoder = new TextEncoder()
	const stream = new ReadableStream<Uint8Array>({
		async pull(controller) {
			const next = await lines.next()
			if (next.done) controller.close()
			else controller.enqueue(encoder.encode(next.value))
		},
	})
	return new Response(stream, {
		headers: {
			'Content-Type': 'text/csv; charset=utf-8',
			'Content-Disposition': 'attachment; filename="do-not-contact.csv"',
			'Cache-Control': 'private, no-store',
			'X-Content-Type-Options': 'nosniff',
		},
	})
}
