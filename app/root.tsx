import { useEffect } from 'react'
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
import { toast as showToast, Toaster } from 'sonner'
import type { Route } from './+types/root'
import { NotFoundScreen } from './components/not-found/not-found-screen.tsx'
import { ForbiddenScreen } from './components/forbidden-screen.tsx'
import { getConfig } from './config.server.ts'
import { routeGuardMiddleware } from './middleware/route-guards.server.ts'
import { sessionMiddleware } from './middleware/session.server.ts'
import { useNonce } from './utils/nonce.ts'
import { useHydrated } from './utils/use-hydrated.ts'
import { getToast } from './utils/toast.server.ts'
import stylesheet from './app.css?url'

export const middleware: Route.MiddlewareFunction[] = [sessionMiddleware, routeGuardMiddleware]

export const links: Route.LinksFunction = () => [
	{ rel: 'stylesheet', href: stylesheet },
	{ rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' },
]

export async function loader({ request }: Route.LoaderArgs) {
	const { toast, headers } = await getToast(request)
	return data({ appName: getConfig().APP_NAME, toast: toast ?? null }, { headers })
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
	const { toast } = loaderData
	const hydrated = useHydrated()
	useEffect(() => {
		if (!toast) return
		const show = {
			success: showToast.success,
			error: showToast.error,
			info: showToast.info,
			warning: showToast.warning,
		}[toast.type]
		show(toast.message, { description: toast.description })
	}, [toast])
	return (
		<>
			<Outlet />
			{/* SPEC.md section 9: 3000 ms, bottom right, up to 20 */}
			<Toaster position="bottom-right" duration={3000} visibleToasts={20} richColors closeButton />
			{/* Without JavaScript the flash message is part of the page itself. */}
			{toast && !hydrated ? (
				<div
					role="status"
					data-testid="flash"
					className="fixed right-4 bottom-4 z-50 max-w-sm rounded-md bg-slate-900 px-4 py-3 text-sm text-white shadow-lg"
				>
					{toast.message}
				</div>
			) : null}
		</>
	)
}

/** SPEC.md sections 2 and 8: every unmatched path and unhandled error shows the 404 screen. */
export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
	const root = useRouteLoaderData<typeof loader>('root')
	const appName = root?.appName ?? 'Leadsmith'
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
