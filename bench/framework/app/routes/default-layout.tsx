// The app's default layout (app/routes/layouts/default.tsx), its markup copied as is, over
// constant loader data.
import {
	Form,
	Link,
	NavLink,
	Outlet,
	useLocation,
	useRouteLoaderData,
	useSubmit,
} from 'react-router'
import { cn } from '../../../../app/utils/cn.ts'
import { prefetchLink } from '../../../../app/utils/prefetch.ts'
import { useHydrated } from '../../../../app/utils/use-hydrated.ts'
import { layoutData, type rootData } from '../data.ts'

type NavGroup = (typeof layoutData.navigation)[number]

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
						{group.items.map((item) => (
							<li key={item.name}>
								<NavLink
									to={item.to}
									end={item.to === '/'}
									// our own intent prefetch: at most 4 preloads at once, none on save-data or 2g
									onPointerEnter={() => prefetchLink(item.to)}
									onFocus={() => prefetchLink(item.to)}
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
				className="truncate rounded-md px-3 py-2 text-sm font-medium text-slate-700 ring-1 ring-slate-300 hover:bg-slate-50"
			>
				{canManage ? 'Create a workspace' : 'No workspace'}
			</Link>
		)
	}
	return (
		<Form
			method="post"
			action="/workspaces/switch"
			className="flex min-w-0 items-center gap-2"
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
				className="block w-full max-w-36 min-w-0 truncate rounded-md border-0 bg-white py-1.5 pr-8 pl-3 text-sm font-medium text-slate-900 ring-1 ring-slate-300 ring-inset focus:ring-2 focus:ring-indigo-600 sm:max-w-56"
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

export default function DefaultLayout({ loaderData }: { loaderData: typeof layoutData }) {
	const { navigation, email, credits, isStaff, workspaces, currentWorkspaceId } = loaderData
	const appName = useRouteLoaderData<typeof rootData>('root')?.appName ?? 'Leadsmith'
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
				<header className="flex items-center justify-between gap-2 border-b border-slate-200 bg-white px-4 py-3 sm:px-6">
					<details className="lg:hidden">
						<summary className="cursor-pointer list-none rounded-md px-3 py-2 text-sm font-semibold text-slate-800 ring-1 ring-slate-300">
							Menu
						</summary>
						<div className="absolute left-0 z-20 mt-2 w-full border-b border-slate-200 bg-white px-4 py-4 shadow-lg">
							<Navigation groups={navigation} />
						</div>
					</details>
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
