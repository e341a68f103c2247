import { EMBEDDED_DOWN_UNHEALTHY_MS, embeddedState } from '../../../db/embedded-state.ts'
import type { ServerRouteHandle } from '../../server/route-handles.server.ts'

// answers at once however busy the process is, never behind page loads, and for the process,
// whoever asks: no session is read (decision 0060)
export const handle: ServerRouteHandle = { pageQueue: 'skip', session: 'none' }

/**
 * Liveness: 200 while this process can serve or recover by itself. A database that is away
 * is /readyz's business (the embedded one is being restarted); only an embedded PostgreSQL
 * that restarts could not bring back for 2 minutes makes this 503, so an orchestrator
 * restarts the process (decision 0061).
 */
export function loader() {
	const state = embeddedState()
	const downMs = state?.downSince ? Date.now() - state.downSince : 0
	const healthy = downMs < EMBEDDED_DOWN_UNHEALTHY_MS
	return new Response(
		healthy ? 'ok' : `embedded PostgreSQL down for ${Math.round(downMs / 1000)} s`,
		{
			status: healthy ? 200 : 503,
			headers: { 'Content-Type': 'text/plain', 'Cache-Control': 'no-store' },
		},
	)
}
