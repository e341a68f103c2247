import { createContext, useContext } from 'react'

// The per-request CSP nonce, given to React Router's inline scripts.
export const NonceContext = createContext<string | undefined>(undefined)
export const NonceProvider = NonceContext.Provider
export const useNonce = () => useContext(NonceContext)
