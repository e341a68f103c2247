import type { Route } from './+types/upload-rejected'
import { requestContext } from '../../context.server.ts'
import { guards } from '../../middleware/route-guards.server.ts'
import { findUpload, rejectedCsv } from '../../services/emailbison/uploads.server.ts'

// GET /uploads/:uploadId/rejected: the rows EmailBison rejected, with the reasons, as CSV
// (formula-safe). Another account's upload is a 404.
export async function loader({ request, params, context }: Route.LoaderArgs) {
	const { account } = context.get(requestContext)
	guards.auth({ request, account })
	guards.subscription({ request, account })
	const upload = await findUpload(account, params.uploadId)
	const lines = rejectedCsv(upload.id)
	const encoder = new TextEncoder()
	const stream = new ReadableStream<Uint8Array>({
		async pull(controller) {
			const next = await lines.next()
			if (next.done) controller.close()
			else controller.enqueue(encoder.encode(next.value))
		},
	})
	const name = `rejected-${upload.campaign_name.replace(/[^\w.-]+/g, '-') || 'upload'}.csv`
	return new Response(stream, {
		headers: {
			'Content-Type': 'text/csv; charset=utf-8',
			'Content-Disposition': `attachment; filename="${name}"`,
			'Cache-Control': 'private, no-store',
			'X-Content-Type-Options': 'nosniff',
		},
	})
}
