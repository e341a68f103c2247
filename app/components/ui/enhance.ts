import { useCallback, useEffect, useRef, useState } from 'react'
import { useHydrated } from '../../utils/use-hydrated.ts'

// The headless primitives (Radix UI) load in their own chunks, only on pages that use them: the
// server renders the native control (a <select>, a <details>), which works without JavaScript
// and until the chunk arrives; then the enhanced one takes its place (decision 0079). Most load
// on first use (useEnhancedOnUse), so that a page's JavaScript stays within the budget of issue
// 34 until someone reaches for the control (decision 0084).
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

export type OpenedBy = 'pointer' | 'keyboard'

/**
 * The module `loader` brings, loaded on first use: `use` is for the native control's
 * pointerenter and focus (the chunk comes while the hand or the focus moves on), and for a click
 * or a key that would open it while the chunk is on its way (`waiting`: `ask` keeps that
 * intent, and `openedBy` says to open the enhanced one; `openNative`, to open the native one
 * if the code never comes). `root` marks the native control's box: `tookFocus`
 * says the focus was in it when the module arrived, for the enhanced control to take it.
 * `loader` must be a module-level constant (it keys the cache).
 */
export function useEnhancedOnUse<T>(loader: () => Promise<T>) {
	const hydrated = useHydrated()
	const root = useRef<HTMLElement | null>(null)
	const [arrived, setArrived] = useState<{
		module: T
		tookFocus: boolean
		pressed: boolean
	} | null>(() => {
		const module = loaded.get(loader) as T | undefined
		return module ? { module, tookFocus: false, pressed: false } : null
	})
	// A press that began on the native control: if the code arrives before the button is
	// released, the native control is gone from under the pointer and the click lands on neither
	// (seen when the chunk comes from the cache between a hover and a click), so the enhanced
	// control opens as if clicked.
	const pressed = useRef(false)
	useEffect(() => {
		if (!hydrated || arrived) return
		const release = () => {
			pressed.current = false
		}
		window.addEventListener('pointerup', release, true)
		window.addEventListener('pointercancel', release, true)
		return () => {
			window.removeEventListener('pointerup', release, true)
			window.removeEventListener('pointercancel', release, true)
		}
	}, [hydrated, arrived])
	const [wanted, setWanted] = useState(false)
	// opened (a click, a key) while the code was on its way: it opens once there
	const [asked, setAsked] = useState<OpenedBy | null>(null)
	const [failed, setFailed] = useState(false)
	const loading = hydrated && wanted && !arrived && !failed
	useEffect(() => {
		if (!loading) return
		let live = true
		load(loader).then(
			(module) =>
				live &&
				setArrived({
					module,
					tookFocus: Boolean(root.current?.contains(document.activeElement)),
					pressed: pressed.current,
				}),
			// the native control stays
			() => live && setFailed(true),
		)
		return () => {
			live = false
		}
	}, [loading, loader])
	const use = useCallback(() => setWanted(true), [])
	/** for the native control's pointerdown: a press under way when the code arrives opens it */
	const press = useCallback(() => {
		pressed.current = true
		setWanted(true)
	}, [])
	/** for a click or key that would open the native control while `waiting`: open on arrival */
	const ask = useCallback((by: OpenedBy = 'pointer') => {
		setWanted(true)
		setAsked(by)
	}, [])
	const rootRef = useCallback((element: HTMLElement | null) => {
		root.current = element
	}, [])
	return {
		hydrated,
		module: arrived?.module ?? null,
		tookFocus: arrived?.tookFocus ?? false,
		/** how the control was asked open before its code came (or pressed as it came): open it */
		openedBy: asked ?? (arrived?.pressed ? ('pointer' as const) : null),
		/** hydrated, and the enhanced control can still come: a click or key may wait for it */
		waiting: hydrated && !arrived && !failed,
		/** asked open, and the code could not be loaded: the native control opens instead */
		openNative: failed && asked !== null,
		/** aria-busy for the native control's box while the enhanced one loads (tests wait on it) */
		busy: loading,
		use,
		press,
		ask,
		/** the native control's box */
		rootRef,
	}
}
