import type { Route } from './+types/inboxes-export'
import { requestContext } from '../../context.server.ts'
import { guards } from '../../middleware/route-guards.server.ts'
import { exportInboxesCsv } from '../../services/inboxes/inboxes.server.ts'

// GET /inboxes/export[?domain=&workspace=&status=]: the inboxes as the sender-import CSV an
// outreach platform takes. Passwords only in the owner's (or a platform admin's) export.
export async function loader({ request, context }: Route.LoaderArgs) {
	const { account } = context.get(requestContext)
	guards.auth({ request, account })
	const params = new URL(request.url).searchParams
	const csv = await exportInboxesCsv(account, {
		domainId: params.get('domain'),
		workspaceId: params.get('workspace'),
		status: params.get('status'),
	})
	return new Response(csv, {
		headers: {
			'Content-Type': 'text/csv; charset=utf-8',
			'Content-Disposition': 'attachment; filename="inboxes.csv"',
			'Cache-Control': 'private, no-store',
		},
	})
}
