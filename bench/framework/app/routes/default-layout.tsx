// Written by `npm run bench:ceiling` (bench/framework/refresh.ts) from app/routes/layouts/default.tsx:
// do not edit; run it again when the app's layout changes. The markup is the app's, over
// the constant data of data.ts.
import {
	Form,
	Link,
	NavLink,
	Outlet,
	useLocation,
	useRouteLoaderData,
	useSubmit,
} from 'react-router'
import type { NavGroup } from '../../../../app/services/navigation.server.ts'
import { NotificationBell } from '../../../../app/components/notifications/notification-bell.tsx'
import { ChevronDown, LogOut, Menu as MenuIcon, Settings, ShieldCheck } from 'lucide-react'
import { Dialog } from '../../../../app/components/ui/dialog.tsx'
import { NAV_ICONS } from '../../../../app/components/ui/nav-icons.tsx'
import { cn } from '../../../../app/utils/cn.ts'
import { prefetchLink } from '../../../../app/utils/prefetch.ts'
import { useHydrated } from '../../../../app/utils/use-hydrated.ts'
import type { loader as rootLoader } from '../../../../app/root.tsx'
import { layoutData } from '../data.ts'

export function loader() {
	return layoutData
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
						{group.items.map((item) => {
							const Icon = NAV_ICONS[item.name]
							return (
								<li key={item.name}>
									<NavLink
										to={item.to}
										end={item.to === '/'}
										// our own intent prefetch: at most 4 preloads at once, none on save-data or 2g
										onPointerEnter={() => prefetchLink(item.to)}
										onFocus={() => prefetchLink(item.to)}
										className={({ isActive }) =>
											cn(
												'flex items-center gap-3 rounded-md px-3 py-2 text-sm font-medium',
												isActive
													? 'bg-indigo-50 text-indigo-800'
													: 'text-slate-700 hover:bg-slate-100',
											)
										}
									>
										{Icon ? <Icon aria-hidden className="size-4 shrink-0" /> : null}
										{item.label}
									</NavLink>
								</li>
							)
						})}
					</ul>
				</div>
			))}
		</nav>
	)
}

/** The current workspace, remembered per user; a plain form without JavaScript. */
function WorkspaceSwitcher({
	workspaces,
	currentWorkspaceId,
	canManage,
}: {
	workspaces: { id: string; name: string }[]
	currentWorkspaceId: string | null
	canManage: boolean
}) {
	const location = useLocation()
	const submit = useSubmit()
	const hydrated = useHydrated()
	if (workspaces.length === 0) {
		return (
			<Link
				to="/workspaces"
				className="order-last rounded-md px-3 py-2 text-sm font-medium whitespace-nowrap text-slate-700 ring-1 ring-slate-300 hover:bg-slate-50 sm:order-none"
			>
				{canManage ? 'Create a workspace' : 'No workspace'}
			</Link>
		)
	}
	return (
		<Form
			method="post"
			action="/workspaces/switch"
			// on a phone the switcher has a row of its own, so that long names stay whole
			className="order-last flex w-full min-w-0 items-center gap-2 sm:order-none sm:w-auto"
			data-testid="workspace-switcher"
		>
			<input type="hidden" name="redirectTo" value={location.pathname + location.search} />
			<label
				htmlFor="workspace-switcher"
				className="sr-only sm:not-sr-only sm:text-sm sm:text-slate-600"
			>
				Workspace
			</label>
			<select
				key={currentWorkspaceId}
				id="workspace-switcher"
				name="workspaceId"
				defaultValue={currentWorkspaceId ?? undefined}
				onChange={hydrated ? (event) => submit(event.currentTarget.form) : undefined}
				className="block w-full min-w-0 truncate rounded-md border-0 bg-white py-1.5 pr-8 pl-3 text-sm font-medium text-slate-900 ring-1 ring-slate-300 ring-inset focus:ring-2 focus:ring-indigo-600 sm:max-w-64 xl:max-w-sm"
			>
				{workspaces.map((w) => (
					<option key={w.id} value={w.id}>
						{w.name}
					</option>
				))}
			</select>
			{hydrated ? null : (
				<button
					type="submit"
					className="rounded-md px-3 py-1.5 text-sm font-semibold text-slate-800 ring-1 ring-slate-300 hover:bg-slate-50"
				>
					Switch
				</button>
			)}
		</Form>
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
				<span className="hidden max-w-48 truncate sm:inline" title={email}>
					{email}
				</span>
				<span className="sr-only sm:hidden">Account menu</span>
				<ChevronDown aria-hidden className="size-4 text-slate-500 group-open:rotate-180" />
			</summary>
			<div className="absolute right-0 z-40 mt-2 w-56 rounded-md bg-white p-1 shadow-lg ring-1 ring-slate-200">
				<p className="truncate px-3 py-2 text-xs text-slate-600" title={email}>
					{email}
				</p>
				<Link
					to="/settings"
					className="flex items-center gap-2 rounded px-3 py-2 text-sm text-slate-700 hover:bg-slate-100"
				>
					<Settings aria-hidden className="size-4" />
					Settings
				</Link>
				{isStaff ? (
					<Link
						to="/admin-login"
						className="flex items-center gap-2 rounded px-3 py-2 text-sm text-slate-700 hover:bg-slate-100"
					>
						<ShieldCheck aria-hidden className="size-4" />
						Admin area
					</Link>
				) : null}
				<Form method="post" action="/signout">
					<button
						type="submit"
						className="flex w-full items-center gap-2 rounded px-3 py-2 text-left text-sm text-slate-700 hover:bg-slate-100"
					>
						<LogOut aria-hidden className="size-4" />
						Sign out
					</button>
				</Form>
			</div>
		</details>
	)
}

/** Below the sidebar's width: an icon button opening the navigation in a sheet. */
function MobileNavigation({ groups, appName }: { groups: NavGroup[]; appName: string }) {
	return (
		<Dialog
			className="lg:hidden"
			// the sheet's code loads only where the button shows
			when={() => !window.matchMedia('(min-width: 1024px)').matches}
			placement="left"
			title={appName}
			testId="mobile-navigation"
			trigger={
				<>
					<MenuIcon aria-hidden className="size-5" />
					<span className="sr-only">Open navigation</span>
				</>
			}
			triggerClassName="grid size-10 place-items-center rounded-md text-slate-800 ring-1 ring-slate-300 hover:bg-slate-50 focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:outline-none"
		>
			<Navigation groups={groups} />
		</Dialog>
	)
}

export default function DefaultLayout({ loaderData }: { loaderData: typeof layoutData }) {
	const { navigation, email, credits, isStaff, workspaces, currentWorkspaceId } = loaderData
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
				<header className="flex flex-wrap items-center justify-between gap-2 border-b border-slate-200 bg-white px-4 py-3 sm:px-6">
					<MobileNavigation groups={navigation} appName={appName} />
					<WorkspaceSwitcher
						workspaces={workspaces}
						currentWorkspaceId={currentWorkspaceId}
						canManage={loaderData.canManageWorkspaces}
					/>
					<div className="flex flex-1 items-center justify-end gap-3">
						<p
							className="rounded-full bg-slate-100 px-3 py-1 text-sm whitespace-nowrap text-slate-700"
							data-testid="credit-balance"
						>
							<span className="font-semibold text-slate-900">{credits.toLocaleString('en')}</span>{' '}
							credits
						</p>
						<NotificationBell unread={loaderData.unreadNotifications} />
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
