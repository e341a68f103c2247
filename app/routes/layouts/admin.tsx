import { Form, Link, Outlet, useRouteLoaderData } from 'react-router'
import type { loader as rootLoader } from '../../root.tsx'

export default function AdminLayout() {
	const appName = useRouteLoaderData<typeof rootLoader>('root')?.appName ?? 'Leadsmith'
	return (
		<div className="min-h-full">
			<header className="flex items-center justify-between gap-4 bg-slate-900 px-6 py-3 text-white">
				<p className="font-bold">
					{appName} <span className="font-normal text-slate-300">admin</span>
				</p>
				<nav aria-label="Admin" className="flex items-center gap-4 text-sm">
					<Link to="/" className="hover:underline">
						Back to the app
					</Link>
					<Form method="post" action="/signout">
						<button type="submit" className="hover:underline">
							Sign out
						</button>
					</Form>
				</nav>
			</header>
			<main className="mx-auto max-w-6xl px-4 py-8">
				<Outlet />
			</main>
		</div>
	)
}
