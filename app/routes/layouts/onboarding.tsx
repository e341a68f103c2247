import { Outlet, useRouteLoaderData } from 'react-router'
import type { loader as rootLoader } from '../../root.tsx'

export default function OnboardingLayout() {
	const appName = useRouteLoaderData<typeof rootLoader>('root')?.appName ?? 'Leadsmith'
	return (
		<div className="min-h-full">
			<header className="border-b border-slate-200 bg-white px-6 py-4">
				<p className="text-lg font-bold">{appName}</p>
			</header>
			<main className="mx-auto max-w-2xl px-4 py-10">
				<Outlet />
			</main>
		</div>
	)
}
