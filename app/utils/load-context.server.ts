import { createContext, RouterContextProvider } from 'react-router'
import type { RouteDeclarations } from '../server/route-handles.server.ts'
import { singleton } from './singleton.server.ts'

// Shared by server.ts and the server bundle, so the key must be one object per process.
export const cspNonceContext = singleton('csp-nonce-context', () => createContext<string>(''))

/** Set when an error of this request came from the database being unreachable (503). */
export const databaseOutageContext = singleton('database-outage-context', () =>
	createContext<{ unavailable: boolean }>(),
)

/** What the matched route declares of itself: its handle, its loader's context read (app/server/route-handles.server.ts). */
export const routeHandleContext = singleton('route-handle-context', () =>
	createContext<RouteDeclarations>({}),
)

export function createLoadContext(nonce: string, routeHandle: RouteDeclarations = {}) {
	const context = new RouterContextProvider()
	context.set(cspNonceContext, nonce)
	context.set(routeHandleContext, routeHandle)
	context.set(databaseOutageContext, { unavailable: false })
	return context
}
