import { useEffect, useState } from 'react'
import {
	data,
	isRouteErrorResponse,
	Links,
	Meta,
	Outlet,
	Scripts,
	ScrollRestoration,
	useRouteLoaderData,
} from 'react-router'
import type { Route } from './+types/root'
import { NotFoundScreen } from './components/not-found/not-found-screen.tsx'
import { Analytics, ConsentBanner, NoScriptPageview } from './components/analytics/analytics.tsx'
import { ForbiddenScreen } from './components/forbidden-screen.tsx'
import { UnavailableScreen } from './components/unavailable-screen.tsx'
import { showToast, Toasts } from './components/ui/toasts.tsx'
import { getConfig } from './config.server.ts'
import { requestContext } from './context.server.ts'
import {
	analyticsEnabled,
	analyticsUser,
	readConsent,
} from './services/analytics/analytics.server.ts'
import { currentBuildId } from './services/build/build-version.server.ts'
import { isChunkLoadError, reloadOnce } from './utils/chunk-reload.ts'
import { databaseUnavailableMiddleware } from './middleware/database-unavailable.server.ts'
import { routeGuardMiddleware } from './middleware/route-guards.server.ts'
import { sessionMiddleware } from './middleware/session.server.ts'
import { useNonce } from './utils/nonce.ts'
import { useHydrated } from './utils/use-hydrated.ts'
import { getToast } from './utils/toast.server.ts'
import stylesheet from './app.css?url'

export const middleware: Route.MiddlewareFunction[] = [
	databaseUnavailableMiddleware,
	sessionMiddleware,
	routeGuardMiddleware,
]

export const links: Route.LinksFunction = () => [
	{ rel: 'stylesheet', href: stylesheet },
	{ rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' },
]

export async function loader({ request, context }: Route.LoaderArgs) {
	const { toast, headers } = await getToast(request)
	const config = getConfig()
	const account = context.get(requestContext).account
	const posthog = analyticsEnabled()
		? { key: config.POSTHOG_KEY!, host: config.POSTHOG_HOST }
		: null
	const consent = posthog ? readConsent(request) : null
	return data(
		{
			appName: config.APP_NAME,
			toast: toast ?? null,
			// what the browser needs: docs/decisions/0009-client-rules-and-analytics.md
			client: {
				ipCountryUrl: config.IP_COUNTRY_URL,
				buildId: currentBuildId(),
				buildPollMs: config.BUILD_POLL_INTERVAL_MS,
				posthog,
			},
			consent,
			analyticsUser:
				posthog && consent === 'granted' && account ? await analyticsUser(account) : null,
		},
		{ headers },
	)
}

/** Polls /build-version; a build other than the page's offers a reload (SPEC.md sections 4, 9). */
function useBuildVersionCheck(buildId: string | null, intervalMs: number) {
	useEffect(() => {
		if (!buildId) return
		let stopped = false
		const timer = window.setInterval(async () => {
			try {
				const response = await fetch('/build-version', { cache: 'no-store' })
				if (!response.ok || stopped) return
				const { id } = (await response.json()) as { id: string | null }
				if (!id || id === buildId || stopped) return
				stopped = true
				window.clearInterval(timer)
				showToast('info', 'A new version is available.', {
					id: 'build-version',
					description: 'Reload the page to get the latest version.',
					duration: Infinity,
					action: { label: 'Reload', onClick: () => window.location.reload() },
				})
			} catch {
				// offline or deploying: try again next time
			}
		}, intervalMs)
		return () => {
			stopped = true
			window.clearInterval(timer)
		}
	}, [buildId, intervalMs])
}

/** A chunk Vite failed to preload (e.g. removed by a deploy): reload once per path. */
function usePreloadErrorReload() {
	useEffect(() => {
		const onPreloadError = (event: Event) => {
			if (reloadOnce()) event.preventDefault()
		}
		window.addEventListener('vite:preloadError', onPreloadError)
		return () => window.removeEventListener('vite:preloadError', onPreloadError)
	}, [])
}

export function Layout({ children }: { children: React.ReactNode }) {
	const nonce = useNonce()
	return (
		<html lang="en" className="h-full">
			<head>
				<meta charSet="utf-8" />
				<meta name="viewport" content="width=device-width, initial-scale=1" />
				<Meta />
				<Links />
			</head>
			<body className="h-full">
				{children}
				<ScrollRestoration nonce={nonce} />
				<Scripts nonce={nonce} />
			</body>
		</html>
	)
}

export default function App({ loaderData }: Route.ComponentProps) {
	const { toast, client, consent } = loaderData
	const hydrated = useHydrated()
	useBuildVersionCheck(client.buildId, client.buildPollMs)
	usePreloadErrorReload()
	useEffect(() => {
		if (!toast) return
		showToast(toast.type, toast.message, { description: toast.description })
	}, [toast])
	return (
		<>
			<Outlet />
			{client.posthog ? (
				<>
					<Analytics config={client.posthog} consent={consent} user={loaderData.analyticsUser} />
					{consent === 'granted' ? <NoScriptPageview /> : null}
					{consent === null ? <ConsentBanner /> : null}
				</>
			) : null}
			<Toasts />
			{/* Without JavaScript the flash message is part of the page itself. */}
			{toast && !hydrated ? (
				<div
					role="status"
					data-testid="flash"
					className="animate-flash-out fixed right-4 bottom-4 z-30 max-w-sm rounded-md bg-slate-900 px-4 py-3 text-sm text-white shadow-lg"
				>
					{toast.message}
				</div>
			) : null}
		</>
	)
}

/**
 * SPEC.md sections 2 and 8: every unmatched path and unhandled error shows the 404 screen;
 * the database being unreachable shows the 503 "temporarily unavailable" screen.
 */
export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
	const root = useRouteLoaderData<typeof loader>('root')
	const appName = root?.appName ?? 'Leadsmith'
	// A lazily loaded chunk that failed (a deploy removed it): reload once per path within
	// 10,000 ms; after that, the 404 screen.
	const chunkError = isChunkLoadError(error)
	const [reloading, setReloading] = useState(chunkError)
	useEffect(() => {
		if (!chunkError || reloadOnce()) return
		const timer = window.setTimeout(() => setReloading(false))
		return () => window.clearTimeout(timer)
	}, [chunkError, error])
	if (chunkError && reloading) return null
	if (isRouteErrorResponse(error) && error.status === 503) {
		return (
			<>
				<title>{`Temporarily unavailable | ${appName}`}</title>
				<UnavailableScreen />
			</>
		)
	}
	if (isRouteErrorResponse(error) && error.status === 403) {
		return (
			<>
				<title>{`Access denied | ${appName}`}</title>
				<ForbiddenScreen message={typeof error.data === 'string' ? error.data : undefined} />
			</>
		)
	}
	return (
		<>
			<title>{`404 Not Found | ${appName}`}</title>
			<NotFoundScreen />
		</>
	)
}
