import { cloneElement, useId, useState, type ReactElement, type ReactNode } from 'react'
import { useEnhancedOnUse } from './enhance.ts'
import { tooltipClasses } from './tooltip-props.ts'

const loadTooltip = () => import('./tooltip.enhanced.tsx')

/**
 * A short description of `children` (one focusable element) shown on hover and focus. Radix
 * Tooltip once the pointer or the focus comes to it; before, and without JavaScript, the same
 * text shows through CSS on hover and focus (Escape hides it once hydrated), and screen readers
 * read it as the element's description either way.
 */
export function Tooltip({
	content,
	children,
}: {
	content: ReactNode
	children: ReactElement<{ 'aria-describedby'?: string }>
}) {
	const { module, busy, tookFocus, use, rootRef } = useEnhancedOnUse(loadTooltip)
	const id = useId()
	// Escape hides the CSS tooltip until the focus or the pointer leaves; the Radix one waits
	// till then too, so that it does not show again the text just dismissed
	const [dismissed, setDismissed] = useState(false)
	if (module && !dismissed)
		return (
			<module.EnhancedTooltip content={content} autoFocus={tookFocus}>
				{children}
			</module.EnhancedTooltip>
		)
	return (
		<span
			ref={rootRef}
			className="group relative inline-flex"
			aria-busy={busy || undefined}
			onPointerEnter={use}
			onFocus={use}
			onKeyDown={(event) => event.key === 'Escape' && setDismissed(true)}
			onBlur={() => setDismissed(false)}
			onPointerLeave={() => setDismissed(false)}
		>
			{cloneElement(children, { 'aria-describedby': id })}
			<span
				role="tooltip"
				id={id}
				className={`${tooltipClasses} pointer-events-none invisible absolute bottom-full left-1/2 mb-2 w-max -translate-x-1/2 ${dismissed ? '' : 'group-focus-within:visible group-hover:visible'}`}
			>
				{content}
			</span>
		</span>
	)
}
