import * as RadixTooltip from '@radix-ui/react-tooltip'
import { useEffect, useRef, type ReactElement, type ReactNode } from 'react'
import { tooltipClasses } from './tooltip-props.ts'

export function EnhancedTooltip({
	content,
	children,
	autoFocus,
}: {
	content: ReactNode
	children: ReactElement
	/** the element had the focus as the CSS tooltip's: it takes it back, which opens this one */
	autoFocus?: boolean
}) {
	const trigger = useRef<HTMLButtonElement>(null)
	useEffect(() => {
		if (autoFocus) trigger.current?.focus()
		// eslint-disable-next-line react-hooks/exhaustive-deps -- once, as it takes the CSS one's place
	}, [])
	return (
		<RadixTooltip.Provider delayDuration={300}>
			<RadixTooltip.Root>
				<RadixTooltip.Trigger ref={trigger} asChild>
					{children}
				</RadixTooltip.Trigger>
				<RadixTooltip.Portal>
					<RadixTooltip.Content sideOffset={6} className={tooltipClasses}>
						{content}
						<RadixTooltip.Arrow className="fill-slate-900" />
					</RadixTooltip.Content>
				</RadixTooltip.Portal>
			</RadixTooltip.Root>
		</RadixTooltip.Provider>
	)
}
