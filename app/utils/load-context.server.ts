import { createContext, RouterContextProvider } from 'react-router'
import { singleton } from './singleton.server.ts'

// Shared by server.ts and the server bundle, so the key must be one object per process.
export const cspNonceContext = singleton('csp-nonce-context', () => createContext<string>(''))

/** Set when an error of this request came from the database being unreachable (503). */
export const databaseOutageContext = singleton('database-outage-context', () =>
	createContext<{ unavailable: boolean }>(),
)

export function createLoadContext(nonce: string) {
	const context = new RouterContextProvider()
	context.set(cspNonceContext, nonce)
	context.set(databaseOutageContext, { unavailable: false })
	return context
}
