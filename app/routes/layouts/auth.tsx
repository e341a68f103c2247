import { Link, Outlet, useRouteLoaderData } from 'react-router'
import type { loader as rootLoader } from '../../root.tsx'

export default function AuthLayout() {
	const root = useRouteLoaderData<typeof rootLoader>('root')
	return (
		<div className="flex min-h-full flex-col items-center justify-center px-4 py-12">
			<Link to="/" className="mb-8 flex items-center gap-2 text-xl font-bold text-slate-900">
				<span
					aria-hidden
					className="grid size-8 place-items-center rounded-md bg-indigo-700 text-white"
				>
					L
				</span>
				{root?.appName ?? 'Leadsmith'}
			</Link>
			<main className="w-full max-w-md rounded-lg bg-white p-6 shadow-sm ring-1 ring-slate-200 sm:p-8">
				<Outlet />
			</main>
		</div>
	)
}
