import type { ServerRouteHandle } from '../../server/route-handles.server.ts'
import { currentBuildId } from '../../services/build/build-version.server.ts'

// answers at once however busy the process is, never behind page loads
export const handle: ServerRouteHandle = { pageQueue: 'skip' }

/** GET /build-version: { id } of the build on the server, polled by the client (root.tsx). */
export function loader() {
	return Response.json({ id: currentBuildId() }, { headers: { 'Cache-Control': 'no-store' } })
}
