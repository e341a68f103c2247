// The app's root (app/root.tsx) without its middleware, session and database: the same
// document, links, scripts and components.
import { Links, Meta, Outlet, Scripts, ScrollRestoration, useLoaderData } from 'react-router'
import { Toasts } from '../../../app/components/ui/toasts.tsx'
import { useHydrated } from '../../../app/utils/use-hydrated.ts'
import { rootData } from './data.ts'
import stylesheet from './app.css?url'

export const links = () => [
	{ rel: 'stylesheet', href: stylesheet },
	{ rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' },
]

export function loader() {
	return rootData
}

export function Layout({ children }: { children: React.ReactNode }) {
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
				<ScrollRestoration />
				<Scripts />
			</body>
		</html>
	)
}

export default function App() {
	const { toast } = useLoaderData<typeof loader>()
	const hydrated = useHydrated()
	return (
		<>
			<Outlet />
			<Toasts />
			{toast && !hydrated ? <div role="status">{toast.message}</div> : null}
		</>
	)
}
