import { useEffect, useRef, useState } from 'react'
import { cn } from '../../utils/cn.ts'
import { useEnhancedOnUse } from './enhance.ts'
import type { TabsProps } from './tabs-props.ts'

export type { TabsProps } from './tabs-props.ts'

const loadTabs = () => import('./tabs.enhanced.tsx')

/**
 * Panels shown one at a time under a tab list (Radix Tabs: arrow keys move between tabs).
 * Without JavaScript every panel is shown, one after another under its own heading, and the
 * list links to each. With JavaScript the tabs come on first use (decision 0090): the pointer
 * or the focus on the list brings their code, and the first tab chosen (a click, Enter) shows
 * that panel alone, its tab focused: the layout changes when someone asks for a tab, never under
 * the pointer on its own.
 */
export function Tabs(props: TabsProps) {
	const { module, waiting, busy, use, rootRef } = useEnhancedOnUse(loadTabs)
	const [chosen, setChosen] = useState<string | null>(null)
	const box = useRef<HTMLDivElement | null>(null)
	const enhanced = module && chosen !== null
	useEffect(() => {
		if (enhanced) box.current?.querySelector<HTMLElement>('[role=tab][aria-selected=true]')?.focus()
	}, [enhanced])
	if (enhanced) {
		return (
			<div ref={box}>
				<module.EnhancedTabs {...props} defaultValue={chosen} />
			</div>
		)
	}
	return (
		<div
			className={props.className}
			aria-busy={busy || undefined}
			ref={(element) => {
				box.current = element
				rootRef(element)
			}}
		>
			<nav aria-label={props.label} onPointerEnter={use} onFocus={use}>
				<ul className="flex flex-wrap gap-1 border-b border-slate-200">
					{props.tabs.map((tab) => (
						<li key={tab.value}>
							<a
								href={`#tab-${tab.value}`}
								onClick={(event) => {
									// the tab is shown as the enhanced one once its code is here
									if (!module && !waiting) return
									event.preventDefault()
									use()
									setChosen(tab.value)
								}}
								className="flex items-center gap-2 px-3 py-2 text-sm font-medium text-slate-700 hover:text-indigo-800"
							>
								{tab.icon}
								{tab.label}
							</a>
						</li>
					))}
				</ul>
			</nav>
			{props.tabs.map((tab) => (
				<section key={tab.value} id={`tab-${tab.value}`} className={cn('mt-4 scroll-mt-4')}>
					<h2 className="mb-2 text-base font-semibold text-slate-900">{tab.label}</h2>
					{tab.content}
				</section>
			))}
		</div>
	)
}
