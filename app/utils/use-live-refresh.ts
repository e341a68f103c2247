import { useEffect } from 'react'
import { useFetchers, useNavigation, useRevalidator } from 'react-router'

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
	const busy = navigation.state !== 'idle' || fetchers.some((f) => f.state !== 'idle')
	useEffect(() => {
		if (!active || busy) return
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
	}, [active, busy, intervalMs, revalidator])
}
