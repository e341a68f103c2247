export function ForbiddenScreen({ message }: { message?: string }) {
	return (
		<main className="flex min-h-full flex-col items-center justify-center gap-4 px-6 py-16 text-center">
			<p className="text-sm font-semibold tracking-wide text-indigo-700 uppercase">403</p>
			<h1 className="text-3xl font-bold text-slate-900">You don't have access to this page</h1>
			<p className="max-w-md text-slate-600">
				{message ?? 'Ask the account owner for access if you need it.'}
			</p>
			<a
				href="/"
				className="rounded-md bg-indigo-700 px-4 py-2 text-sm font-semibold text-white hover:bg-indigo-800 focus:ring-2 focus:ring-indigo-500 focus:ring-offset-2 focus:outline-none"
			>
				Go Home
			</a>
		</main>
	)
}
