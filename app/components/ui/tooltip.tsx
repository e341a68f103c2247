import { cloneElement, useId, type ReactElement, type ReactNode } from 'react'
import { useEnhanced } from './enhance.ts'
import { tooltipClasses } from './tooltip-props.ts'

const loadTooltip = () => import('./tooltip.enhanced.tsx')

/**
 * A short description of `children` (one focusable element) shown on hover and focus. Radix
 * Tooltip after hydration (Escape hides it); without JavaScript the same text shows through CSS
 * on hover and focus, and screen readers read it as the element's description either way.
 */
export function Tooltip({
	content,
	children,
}: {
	content: ReactNode
	children: ReactElement<{ 'aria-describedby'?: string }>
}) {
	const { module, busy } = useEnhanced(loadTooltip)
	const id = useId()
	if (module) return <module.EnhancedTooltip content={content}>{children}</module.EnhancedTooltip>
	return (
		<span className="group relative inline-flex" aria-busy={busy || undefined}>
			{cloneElement(children, { 'aria-describedby': id })}
			<span
				role="tooltip"
				id={id}
				className={`${tooltipClasses} pointer-events-none invisible absolute bottom-full left-1/2 mb-2 w-max -translate-x-1/2 group-focus-within:visible group-hover:visible`}
			>
				{content}
			</span>
		</span>
	)
}
