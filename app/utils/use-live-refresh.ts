import { useContext, useEffect } from 'react'
import { UNSAFE_DataRouterContext, useFetchers, useNavigation, useRevalidator } from 'react-router'

/**
 * Reloads the page's data every `intervalMs` while `active` (a job is running), so progress
 * shows live with JavaScript; without it, a reload shows the same. A hidden tab is not
 * refreshed until it is shown again, and then at once.
 *
 * Not while a navigation or a form (a fetcher's too) is under way: a revalidation then
 * restarts the navigation's load, and a load the server has already answered (the flash
 * toast read, its cookie cleared) would be thrown away with its toast (decision 0107). The
 * load under way brings fresh data anyway; the refresh goes on once it has ended.
 */
export function useLiveRefresh(active: boolean, intervalMs: number) {
	const revalidator = useRevalidator()
	const navigation = useNavigation()
	const fetchers = useFetchers()
	// The rendered state lags the router's: React Router hands its state over in a transition,
	// so a tick can fall after a submit has started and before the page re-renders (seen on a
	// loaded machine). The router's own state, read at the tick, has no such gap.
	const router = useContext(UNSAFE_DataRouterContext)?.router
	const busy = navigation.state !== 'idle' || fetchers.some((f) => f.state !== 'idle')
	useEffect(() => {
		if (!active || busy) return
		const refresh = () => {
			const now = router?.state
			const settled = now
				? now.navigation.state === 'idle' &&
					now.revalidation === 'idle' &&
					[...now.fetchers.values()].every((f) => f.state === 'idle')
				: revalidator.state === 'idle'
			if (settled && document.visibilityState !== 'hidden') void revalidator.revalidate()
		}
		const timer = setInterval(refresh, intervalMs)
		document.addEventListener('visibilitychange', refresh)
		return () => {
			clearInterval(timer)
			document.removeEventListener('visibilitychange', refresh)
		}
	}, [active, busy, intervalMs, revalidator, router])
}
