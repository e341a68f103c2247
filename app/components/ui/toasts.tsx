import { lazy, Suspense } from 'react'
import type { ExternalToast } from 'sonner'
import { useHydrated } from '../../utils/use-hydrated.ts'

// sonner loads after hydration, not with the page: the sign-in page's first load stays
// within its budget (docs/decisions/0030-sign-in-page-javascript-budget.md). Toasts asked
// for before the Toaster mounts are replayed when it subscribes.
const loadSonner = () => import('sonner')
const Toaster = lazy(() => loadSonner().then((sonner) => ({ default: sonner.Toaster })))

export type ToastType = 'success' | 'error' | 'info' | 'warning'

export function showToast(type: ToastType, message: string, options?: ExternalToast) {
	void loadSonner().then(({ toast }) => toast[type](message, options))
}

/**
 * Layers: page < consent banner (z-20) < toasts (z-30) < open dropdowns (z-40) < modals (the top
 * layer). On a phone the toasts span the bottom of the screen, where a long dropdown ends: the
 * dropdown stays on top (sonner's own z-index would put the toast over it).
 */
export const TOAST_Z_INDEX = 30

/** SPEC.md section 9: 3000 ms, bottom right, up to 20. */
export function Toasts() {
	const hydrated = useHydrated()
	if (!hydrated) return null
	return (
		<Suspense fallback={null}>
			<Toaster
				position="bottom-right"
				duration={3000}
				visibleToasts={20}
				richColors
				closeButton
				style={{ zIndex: TOAST_Z_INDEX }}
			/>
		</Suspense>
	)
}
