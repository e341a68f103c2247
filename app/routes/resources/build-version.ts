import { currentBuildId } from '../../services/build/build-version.server.ts'

/** GET /build-version: { id } of the build on the server, polled by the client (root.tsx). */
export function loader() {
	return Response.json({ id: currentBuildId() }, { headers: { 'Cache-Control': 'no-store' } })
}
