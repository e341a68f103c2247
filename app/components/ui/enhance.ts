import { useEffect, useState } from 'react'
import { useHydrated } from '../../utils/use-hydrated.ts'

// The headless primitives (Radix UI) load after hydration, each in its own chunk, and only on
// pages that use them: the server renders the native control (a <select>, a <details>), which
// works without JavaScript and until the chunk arrives; then the enhanced one takes its place
// (docs/decisions/0079-design-system-on-radix-primitives.md).
const loaded = new Map<() => Promise<unknown>, unknown>()
const pending = new Map<() => Promise<unknown>, Promise<unknown>>()

function load<T>(loader: () => Promise<T>): Promise<T> {
	let promise = pending.get(loader) as Promise<T> | undefined
	if (!promise) {
		promise = loader().then((module) => {
			loaded.set(loader, module)
			return module
		})
		// a failed load (a new build took the chunk away) leaves the native control in place
		promise.catch(() => pending.delete(loader))
		pending.set(loader, promise)
	}
	return promise
}

/**
 * The module `loader` brings, once hydrated (and `when` holds); null before, and whenever it
 * cannot be loaded. `loader` must be a module-level constant (it keys the cache).
 */
export function useEnhanced<T>(loader: () => Promise<T>, when: () => boolean = () => true) {
	const hydrated = useHydrated()
	const [module, setModule] = useState<T | null>(() => (loaded.get(loader) as T) ?? null)
	const [failed, setFailed] = useState(false)
	// only read once hydrated: `when` may look at the window
	const wanted = hydrated && !module && !failed && when()
	useEffect(() => {
		if (!wanted) return
		let live = true
		load(loader).then(
			(m) => live && setModule(() => m),
			// the native control stays
			() => live && setFailed(true),
		)
		return () => {
			live = false
		}
	}, [wanted, loader])
	/** aria-busy for the native control's box while the enhanced one loads (tests wait on it) */
	return { hydrated, module, busy: wanted }
}
