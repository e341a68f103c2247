import type { ReactNode } from 'react'

export type MenuEntry = { label: ReactNode; icon?: ReactNode; tone?: 'danger' } &
	/** a link; `download`: a file, fetched by the browser itself rather than the router */
	(
		| { to: string; download?: boolean }
		/** a form posting `fields` to `action` (this page's action when absent) */
		| { action?: string; fields: Record<string, string> }
	)

export type MenuProps = {
	/** the trigger's content: words, or an icon with an sr-only name */
	trigger: ReactNode
	triggerClassName?: string
	/** the list's accessible name without JavaScript (the enhanced menu is named by its trigger) */
	label: string
	items: readonly MenuEntry[]
	align?: 'start' | 'end'
	className?: string
	testId?: string
}
