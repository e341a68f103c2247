import type { ServerRouteHandle } from '../../server/route-handles.server.ts'

// answers at once however busy the process is, never behind page loads
export const handle: ServerRouteHandle = { pageQueue: 'skip' }
export function loader() {
	return new Response('ok', {
		headers: { 'Content-Type': 'text/plain', 'Cache-Control': 'no-store' },
	})
}
