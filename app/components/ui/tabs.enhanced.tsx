import * as RadixTabs from '@radix-ui/react-tabs'
import type { TabsProps } from './tabs-props.ts'

export function EnhancedTabs({ label, tabs, defaultValue, className }: TabsProps) {
	return (
		<RadixTabs.Root defaultValue={defaultValue ?? tabs[0]?.value} className={className}>
			<RadixTabs.List aria-label={label} className="flex flex-wrap gap-1 border-b border-slate-200">
				{tabs.map((tab) => (
					<RadixTabs.Trigger
						key={tab.value}
						value={tab.value}
						className="-mb-px flex items-center gap-2 border-b-2 border-transparent px-3 py-2 text-sm font-medium text-slate-700 hover:text-indigo-800 focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:outline-none data-[state=active]:border-indigo-700 data-[state=active]:text-indigo-800"
					>
						{tab.icon}
						{tab.label}
					</RadixTabs.Trigger>
				))}
			</RadixTabs.List>
			{tabs.map((tab) => (
				<RadixTabs.Content
					key={tab.value}
					value={tab.value}
					className="mt-4 focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:outline-none"
				>
					{tab.content}
				</RadixTabs.Content>
			))}
		</RadixTabs.Root>
	)
}
