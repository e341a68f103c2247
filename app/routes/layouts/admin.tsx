import { Form, Link, NavLink, Outlet, useRouteLoaderData } from 'react-router'
import type { loader as rootLoader } from '../../root.tsx'
import { cn } from '../../utils/cn.ts'

const SECTIONS = [
	{ to: '/admin-dashboard', label: 'Users and health', end: true },
	{ to: '/admin-dashboard/plans', label: 'Plans and packs', end: false },
	{ to: '/admin-dashboard/inbox-orders', label: 'Inbox orders', end: false },
	{ to: '/admin-dashboard/jobs', label: 'Jobs', end: false },
	{ to: '/admin-dashboard/templates', label: 'URL templates', end: false },
	{ to: '/admin-dashboard/audit', label: 'Audit log', end: false },
]

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
			<nav aria-label="Admin sections" className="border-b border-slate-200 bg-white px-6">
				<ul className="mx-auto flex max-w-6xl flex-wrap gap-1">
					{SECTIONS.map((section) => (
						<li key={section.to}>
							<NavLink
								to={section.to}
								end={section.end}
								className={({ isActive }) =>
									cn(
										'block border-b-2 px-3 py-3 text-sm font-medium',
										isActive
											? 'border-indigo-700 text-indigo-800'
											: 'border-transparent text-slate-700 hover:text-slate-900',
									)
								}
							>
								{section.label}
							</NavLink>
						</li>
					))}
				</ul>
			</nav>
			<main className="mx-auto max-w-6xl px-4 py-8">
				<Outlet />
			</main>
		</div>
	)
}
