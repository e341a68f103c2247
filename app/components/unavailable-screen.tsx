/**
 * The database is restarting or out of connections: nothing is wrong with the page, so say
 * so and offer the same address again (a plain link: works without JavaScript).
 */
export function UnavailableScreen() {
	return (
		<main className="flex min-h-full flex-col items-center justify-center gap-4 px-6 py-16 text-center">
			<p className="text-sm font-semibold tracking-wide text-indigo-700 uppercase">503</p>
			<h1 className="text-3xl font-bold text-slate-900">Temporarily unavailable</h1>
			<p className="max-w-md text-slate-600">
				{UNAVAILABLE_MESSAGE} Your data is safe; running jobs continue on their own.
			</p>
			<a
				href=""
				className="rounded-md bg-indigo-700 px-4 py-2 text-sm font-semibold text-white hover:bg-indigo-800 focus:ring-2 focus:ring-indigo-500 focus:ring-offset-2 focus:outline-none"
			>
				Try again
			</a>
		</main>
	)
}

export const UNAVAILABLE_MESSAGE =
	'Leadsmith is temporarily unavailable, try again in a few seconds.'
