import type { ServerRouteHandle } from './server/route-handles.server.ts'
import { API_DECLARATIONS, answerApiRequest, isApiPath } from './services/api/endpoint.server.ts'

// What the server answers beside React Router's route table (decision 0108): fetch handlers
// (Request in, Response out) for what is no page, so needs no route matching, middleware,
// page queue, CSP nonce or session. Like a route, each declares what the server's generic
// layers need of it; they run before it (forwarding by Host, the URL check, body limits).

export type FetchHandlerMount = {
	matches: (pathname: string) => boolean
	fetch: (request: Request) => Promise<Response> | Response
	declarations: ServerRouteHandle
}

export const fetchHandlers: readonly FetchHandlerMount[] = [
	// the public API (/api/v1): JSON for bearer tokens
	{ matches: isApiPath, fetch: answerApiRequest, declarations: API_DECLARATIONS },
]

/** The mounted handler that answers `pathname`, if one does. */
export function fetchHandlerFor(pathname: string) {
	for (const handler of fetchHandlers) if (handler.matches(pathname)) return handler
	return undefined
}
