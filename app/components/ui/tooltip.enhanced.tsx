import * as RadixTooltip from '@radix-ui/react-tooltip'
import type { ReactElement, ReactNode } from 'react'
import { tooltipClasses } from './tooltip-props.ts'

export function EnhancedTooltip({
	content,
	children,
}: {
	content: ReactNode
	children: ReactElement
}) {
	return (
		<RadixTooltip.Provider delayDuration={300}>
			<RadixTooltip.Root>
				<RadixTooltip.Trigger asChild>{children}</RadixTooltip.Trigger>
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
