import { Link } from 'react-router'
import { Badge } from '../ui/badge.tsx'

/** A lead on the do-not-contact list, with the entry that matched it. */
export function SuppressedBadge({ entry }: { entry?: string | null }) {
	if (!entry) return null
	return (
		<span data-testid="suppressed-badge">
			<Badge tone="red" className="ml-1">
				Suppressed: {entry}
			</Badge>
		</span>
	)
}

/** The list page's filter: only the leads the do-not-contact list suppresses, or all again. */
export function SuppressedFilterLink({ on, to }: { on: boolean; to: string }) {
	return (
		<p className="mb-3 text-sm">
			<Link
				to={to}
				className="font-medium text-indigo-700 hover:underline"
				aria-current={on || undefined}
			>
				{on ? 'Show all leads' : 'Show suppressed leads only'}
			</Link>
		</p>
	)
}
