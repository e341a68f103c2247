import { cn } from '../../utils/cn.ts'
import { useEnhanced } from './enhance.ts'
import type { TabsProps } from './tabs-props.ts'

export type { TabsProps } from './tabs-props.ts'

const loadTabs = () => import('./tabs.enhanced.tsx')

/**
 * Panels shown one at a time under a tab list (Radix Tabs: arrow keys move between tabs).
 * Without JavaScript every panel is shown, one after another under its own heading, and the
 * list links to each.
 */
export function Tabs(props: TabsProps) {
	const { module, busy } = useEnhanced(loadTabs)
	if (module) return <module.EnhancedTabs {...props} />
	return (
		<div className={props.className} aria-busy={busy || undefined}>
			<nav aria-label={props.label}>
				<ul className="flex flex-wrap gap-1 border-b border-slate-200">
					{props.tabs.map((tab) => (
						<li key={tab.value}>
							<a
								href={`#tab-${tab.value}`}
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
