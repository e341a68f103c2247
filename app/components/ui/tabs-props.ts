import type { ReactNode } from 'react'

export type TabsProps = {
	/** the tab list's accessible name */
	label: string
	tabs: readonly { value: string; label: ReactNode; icon?: ReactNode; content: ReactNode }[]
	defaultValue?: string
	className?: string
}
