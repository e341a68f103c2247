import { Link } from 'react-router'
import { buttonClasses } from './button.tsx'

/**
 * Where a paged table is ("1–50 of 1,000") and its Previous and Next links, which are absent
 * on the first and the last page.
 */
export function PageLinks({
	label,
	statusTestId,
	first,
	count,
	total,
	previous,
	next,
	className = 'mt-4',
}: {
	/** the navigation's accessible name */
	label: string
	statusTestId: string
	/** the 1-based position of the page's first row, and how many rows the page shows */
	first: number
	count: number
	/** all rows, when known */
	total: number | null
	previous: string | null
	next: string | null
	className?: string
}) {
	return (
		<nav
			aria-label={label}
			className={`${className} flex flex-wrap items-center justify-between gap-3 text-sm`}
		>
			<p className="text-slate-600" data-testid={statusTestId}>
				{count > 0
					? `${first.toLocaleString('en')}–${(first + count - 1).toLocaleString('en')}${
							total !== null ? ` of ${total.toLocaleString('en')}` : ''
						}`
					: ''}
			</p>
			<div className="flex gap-2">
				{previous ? (
					<Link to={previous} className={buttonClasses('secondary')} rel="prev">
						Previous
					</Link>
				) : null}
				{next ? (
					<Link to={next} className={buttonClasses('secondary')} rel="next">
						Next
					</Link>
				) : null}
			</div>
		</nav>
	)
}
