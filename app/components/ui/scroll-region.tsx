import type { ReactNode } from 'react'
import { cn } from '../../utils/cn.ts'

/**
 * A box that scrolls sideways when its table is wider than a phone, rather than the whole page.
 * Focusable and named, so that the keyboard can scroll it too.
 */
export function ScrollRegion({
	label,
	className,
	children,
}: {
	label: string
	className?: string
	children: ReactNode
}) {
	return (
		<div
			className={cn(
				'relative overflow-x-auto focus-visible:outline-2 focus-visible:outline-indigo-600',
				className,
			)}
			tabIndex={0}
			role="region"
			aria-label={label}
		>
			{children}
		</div>
	)
}
