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

// Sonner's rich colours put 13 px text at 3-4.3:1 on their tints (axe: color-contrast); the
// same hues, darker, reach at least 4.5:1.
const READABLE_COLORS = {
	'--success-text': 'hsl(140, 100%, 22%)',
	'--info-text': 'hsl(210, 92%, 35%)',
	'--warning-text': 'hsl(31, 92%, 28%)',
	'--error-text': 'hsl(360, 100%, 38%)',
} as React.CSSProperties

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
				style={{ zIndex: TOAST_Z_INDEX, ...READABLE_COLORS }}
			/>
		</Suspense>
	)
}
