import type { ReactNode } from 'react'

/** Wherever test payments appear: no real money moves. */
export function TestModeBanner({ children }: { children?: ReactNode }) {
	return (
		<div
			role="note"
			data-testid="test-mode"
			className="mb-6 flex flex-wrap items-center gap-x-3 gap-y-1 rounded-md bg-amber-50 px-4 py-3 text-sm text-amber-900 ring-1 ring-amber-300"
		>
			<span className="rounded bg-amber-400 px-2 py-0.5 text-xs font-bold tracking-wider text-amber-950 uppercase">
				Test mode
			</span>
			<span>
				{children ??
					'Payments are simulated on a test page: no card is charged and no money moves.'}
			</span>
		</div>
	)
}
