import { useEffect } from 'react'
import { useRevalidator } from 'react-router'

/**
 * Reloads the page's data every `intervalMs` while `active` (a job is running), so progress
 * shows live with JavaScript; without it, a reload shows the same. A hidden tab is not
 * refreshed until it is shown again, and then at once.
 */
export function useLiveRefresh(active: boolean, intervalMs: number) {
	const revalidator = useRevalidator()
	useEffect(() => {
		if (!active) return
		const refresh = () => {
			if (revalidator.state === 'idle' && document.visibilityState !== 'hidden')
				void revalidator.revalidate()
		}
		const timer = setInterval(refresh, intervalMs)
		document.addEventListener('visibilitychange', refresh)
		return () => {
			clearInterval(timer)
			document.removeEventListener('visibilitychange', refresh)
		}
	}, [active, intervalMs, revalidator])
}
