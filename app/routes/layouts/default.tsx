import { Form, Link, NavLink, Outlet, redirect, useRouteLoaderData } from 'react-router'
import type { Route } from './+types/default'
import { requestContext } from '../../context.server.ts'
import { navigationFor, type NavGroup } from '../../services/navigation.server.ts'
import { cn } from '../../utils/cn.ts'
import type { loader as rootLoader } from '../../root.tsx'

export async function loader({ context }: Route.LoaderArgs) {
	const { account } = context.get(requestContext)
	if (!account) throw redirect('/signin')
	return {
		email: account.user.email,
		credits: account.creditBalance,
		isStaff: account.platformRole !== null,
		navigation: navigationFor(account),
	}
}

function Navigation({ groups }: { groups: NavGroup[] }) {
	return (
		<nav aria-label="Main" className="space-y-6">
			{groups.map((group) => (
				<div key={group.label}>
					<h2 className="px-3 text-xs font-semibold tracking-wide text-slate-500 uppercase">
						{group.label}
					</h2>
					<ul className="mt-2 space-y-1">
						{group.items.map((item) => (
							<li key={item.name}>
								<NavLink
									to={item.to}
									end={item.to === '/'}
									prefetch="intent"
									className={({ isActive }) =>
										cn(
											'block rounded-md px-3 py-2 text-sm font-medium',
											isActive
												? 'bg-indigo-50 text-indigo-800'
												: 'text-slate-700 hover:bg-slate-100',
										)
									}
								>
									{item.label}
								</NavLink>
							</li>
						))}
					</ul>
				</div>
			))}
		</nav>
	)
}

function AccountMenu({ email, isStaff }: { email: string; isStaff: boolean }) {
	// <details> opens and closes without JavaScript.
	return (
		<details className="group relative">
			<summary className="flex cursor-pointer list-none items-center gap-2 rounded-md px-3 py-2 text-sm font-medium text-slate-700 hover:bg-slate-100">
				<span
					aria-hidden
					className="grid size-7 place-items-center rounded-full bg-indigo-100 text-xs font-bold text-indigo-800 uppercase"
				>
					{email.slice(0, 1)}
				</span>
				<span className="hidden max-w-48 truncate sm:inline">{email}</span>
				<span className="sr-only sm:hidden">Account menu</span>
			</summary>
			<div className="absolute right-0 z-20 mt-2 w-56 rounded-md bg-white p-1 shadow-lg ring-1 ring-slate-200">
				<p className="truncate px-3 py-2 text-xs text-slate-600">{email}</p>
				<Link
					to="/settings"
					className="block rounded px-3 py-2 text-sm text-slate-700 hover:bg-slate-100"
				>
					Settings
				</Link>
				{isStaff ? (
					<Link
						to="/admin-login"
						className="block rounded px-3 py-2 text-sm text-slate-700 hover:bg-slate-100"
					>
						Admin area
					</Link>
				) : null}
				<Form method="post" action="/signout">
					<button
						type="submit"
						className="block w-full rounded px-3 py-2 text-left text-sm text-slate-700 hover:bg-slate-100"
					>
						Sign out
					</button>
				</Form>
			</div>
		</details>
	)
}

export default function DefaultLayout({ loaderData }: Route.ComponentProps) {
	const { navigation, email, credits, isStaff } = loaderData
	const appName = useRouteLoaderData<typeof rootLoader>('root')?.appName ?? 'Leadsmith'
	return (
		<div className="min-h-full lg:flex">
			<aside className="hidden w-64 shrink-0 border-r border-slate-200 bg-white px-3 py-6 lg:block">
				<Link to="/" className="mb-8 flex items-center gap-2 px-3 text-lg font-bold">
					<span
						aria-hidden
						className="grid size-7 place-items-center rounded-md bg-indigo-700 text-sm text-white"
					>
						L
					</span>
					{appName}
				</Link>
				<Navigation groups={navigation} />
			</aside>
			<div className="flex min-w-0 flex-1 flex-col">
				<header className="flex items-center justify-between gap-4 border-b border-slate-200 bg-white px-4 py-3 sm:px-6">
					<details className="lg:hidden">
						<summary className="cursor-pointer list-none rounded-md px-3 py-2 text-sm font-semibold text-slate-800 ring-1 ring-slate-300">
							Menu
						</summary>
						<div className="absolute left-0 z-20 mt-2 w-full border-b border-slate-200 bg-white px-4 py-4 shadow-lg">
							<Navigation groups={navigation} />
						</div>
					</details>
					<div className="flex flex-1 items-center justify-end gap-3">
						<p
							className="rounded-full bg-slate-100 px-3 py-1 text-sm text-slate-700"
							data-testid="credit-balance"
						>
							<span className="font-semibold text-slate-900">{credits.toLocaleString('en')}</span>{' '}
							credits
						</p>
						<AccountMenu email={email} isStaff={isStaff} />
					</div>
				</header>
				<main className="flex-1 px-4 py-6 sm:px-8 sm:py-8">
					<Outlet />
				</main>
			</div>
		</div>
	)
}
