import { useEffect, useRef } from 'react'
import { Form, useFetcher, useLocation, useMatches } from 'react-router'
import { useHydrated } from '../../utils/use-hydrated.ts'
import { pageName, type AnalyticsUser, type Consent } from '../../services/analytics/identity.ts'

export type AnalyticsConfig = { key: string; host: string } | null

function usePageName() {
	const matches = useMatches()
	const leaf = matches[matches.length - 1]
	const location = useLocation()
	return (title: string) =>
		pageName(leaf && leaf.id !== 'not-found' ? leaf.id : undefined, location.pathname, title)
}

/**
 * Page views and identification (SPEC.md sections 7 and 9), only with a key and consent:
 * a $pageview on first load and after every client-side navigation; identify on user load;
 * reset on sign-out.
 */
export function Analytics({
	config,
	consent,
	user,
}: {
	config: AnalyticsConfig
	consent: Consent | null
	user: AnalyticsUser | null
}) {
	const location = useLocation()
	const name = usePageName()
	const enabled = Boolean(config) && consent === 'granted'
	const lastUser = useRef<string | null>(null)
	const url = location.pathname + location.search

	useEffect(() => {
		if (!config) return
		if (consent === 'granted') {
			void import('./posthog.client.ts').then((ph) => ph.startPostHog(config))
		} else if (consent === 'denied') {
			void import('./posthog.client.ts').then((ph) => ph.stopPostHog())
		}
	}, [config, consent])

	// identify before the page view, so the view is attributed to the user
	useEffect(() => {
		if (!enabled) return
		void import('./posthog.client.ts').then(async (ph) => {
			if (user) {
				if (lastUser.current !== user.id) await ph.identify(user)
				lastUser.current = user.id
			} else if (lastUser.current || (await ph.identifiedId())) {
				lastUser.current = null
				await ph.reset()
			}
		})
	}, [enabled, user])

	useEffect(() => {
		if (!enabled) return
		const page = name(document.title)
		void import('./posthog.client.ts').then((ph) => ph.capturePageview(window.location.href, page))
		// eslint-disable-next-line react-hooks/exhaustive-deps -- once per location
	}, [enabled, url])

	return null
}

/** Server-side page view for clients that run no script: browsers with scripts skip <noscript>. */
export function NoScriptPageview() {
	const location = useLocation()
	const name = usePageName()
	const query = new URLSearchParams({ u: location.pathname + location.search, p: name('') })
	return (
		<noscript>
			<img src={`/analytics/pv?${query}`} alt="" width={1} height={1} className="hidden" />
		</noscript>
	)
}

/** The consent banner: a plain form without JavaScript, a fetcher with it. */
export function ConsentBanner() {
	const fetcher = useFetcher()
	const location = useLocation()
	const hydrated = useHydrated()
	if (fetcher.state !== 'idle' || fetcher.data) return null
	const FormComponent = hydrated ? fetcher.Form : Form
	return (
		<section
			aria-label="Cookie consent"
			className="fixed inset-x-0 bottom-0 z-20 border-t border-slate-200 bg-white px-4 py-4 shadow-lg sm:px-6"
			data-testid="consent-banner"
		>
			<FormComponent
				method="post"
				action="/consent"
				className="mx-auto flex max-w-4xl flex-wrap items-center justify-between gap-3"
			>
				<p className="text-sm text-slate-700">
					We use analytics cookies to understand how the product is used and to improve it. Nothing
					is collected unless you allow it.
				</p>
				<input type="hidden" name="redirectTo" value={location.pathname + location.search} />
				{hydrated ? <input type="hidden" name="js" value="1" /> : null}
				<div className="flex gap-2">
					<button
						type="submit"
						name="consent"
						value="denied"
						className="rounded-md px-3 py-2 text-sm font-semibold text-slate-800 ring-1 ring-slate-300 hover:bg-slate-50"
					>
						Decline
					</button>
					<button
						type="submit"
						name="consent"
						value="granted"
						className="rounded-md bg-indigo-700 px-3 py-2 text-sm font-semibold text-white hover:bg-indigo-800"
					>
						Allow analytics
					</button>
				</div>
			</FormComponent>
		</section>
	)
}
