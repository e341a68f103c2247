import type { Route } from './+types/api-v1'
import type { ServerRouteHandle } from '../../server/route-handles.server.ts'
import { API_BASE, handleApiRequest } from '../../services/api/handler.server.ts'
import { openApiJson } from '../../services/api/document.server.ts'
import { API_OPERATIONS } from '../../services/api/operations.server.ts'

// The public API (/api/v1/*): bearer tokens, never the session cookie (so no session is read),
// and CSV uploads as multipart bodies.
export const handle: ServerRouteHandle = { session: 'none', bodyLimit: 'upload' }

function answer(request: Request) {
	if (new URL(request.url).pathname === `${API_BASE}/openapi.json` && request.method === 'GET') {
		return new Response(openApiJson(), {
			headers: {
				'Content-Type': 'application/json',
				'Cache-Control': 'public, max-age=300',
				'Access-Control-Allow-Origin': '*',
			},
		})
	}
	return handleApiRequest(request, API_OPERATIONS)
}

export function loader({ request }: Route.LoaderArgs) {
	return answer(request)
}

export function action({ request }: Route.ActionArgs) {
	return answer(request)
}
