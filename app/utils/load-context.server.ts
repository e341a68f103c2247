import { createContext, RouterContextProvider } from 'react-router'
import { singleton } from './singleton.server.ts'

// Shared by server.ts and the server bundle, so the key must be one object per process.
export const cspNonceContext = singleton('csp-nonce-context', () => createContext<string>(''))

export function createLoadContext(nonce: string) {
	const context = new RouterContextProvider()
	context.set(cspNonceContext, nonce)
	return context
}
