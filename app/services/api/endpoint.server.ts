import type { ServerRouteHandle } from '../../server/route-handles.server.ts'
import { API_BASE, handleApiRequest } from './handler.server.ts'
import { openApiJson } from './document.server.ts'
import { API_OPERATIONS } from './operations.server.ts'

// The public API (/api/v1/*) as a fetch handler, mounted by the server beside React Router
// (decision 0108): it is no page, so it needs no route matching, middleware, page queue, CSP
// nonce or session. Bearer tokens only, and CSV uploads as multipart bodies.

/** What the server's generic layers need to know of it: the upload body limit, no session. */
export const API_DECLARATIONS: ServerRouteHandle = { session: 'none', bodyLimit: 'upload' }

/** Whether a pathname is the API's (`/api/v1` and everything under it). */
export function isApiPath(pathname: string) {
	return (
		pathname.startsWith(API_BASE) &&
		(pathname.length === API_BASE.length || pathname[API_BASE.length] === '/')
	)
}

/** Answers one request to /api/v1; HEAD as GET would, without the body (RFC 9110 9.3.2). */
export async function answerApiRequest(request: Request): Promise<Response> {
	if (request.method !== 'HEAD') return answerGetOrOther(request)
	const answer = await answerGetOrOther(
		new Request(request.url, { method: 'GET', headers: request.headers }),
	)
	await answer.body?.cancel()
	return new Response(null, { status: answer.status, headers: answer.headers })
}

function answerGetOrOther(request: Request): Promise<Response> | Response {
	if (request.method === 'GET' && new URL(request.url).pathname === `${API_BASE}/openapi.json`) {
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
