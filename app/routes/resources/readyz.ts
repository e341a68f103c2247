import type { ServerRouteHandle } from '../../server/route-handles.server.ts'
import { readiness } from '../../services/admin/health.server.ts'

// answers at once however busy the process is, never behind page loads, and for the process,
// whoever asks: no session is read (decision 0060)
export const handle: ServerRouteHandle = { pageQueue: 'skip', session: 'none' }

/** For load balancers: 200 when the database and the job queue are ready, else 503. */
export async function loader() {
	const { ok, checks } = await readiness()
	const body = checks.map((c) => `${c.service}: ${c.ok ? 'ok' : `fail (${c.detail})`}`).join('\n')
	return new Response(`${ok ? 'ready' : 'not ready'}\n${body}\n`, {
		status: ok ? 200 : 503,
		headers: { 'Content-Type': 'text/plain', 'Cache-Control': 'no-store' },
	})
}
