import type { ComponentType, ReactNode } from 'react'

/** A button that closes the dialog (null without JavaScript, where the <details> stays open). */
export type CloseButton = ComponentType<{ children: ReactNode; className?: string }> | null

export type DialogProps = {
	/** the trigger's content: words, or an icon with an sr-only name */
	trigger: ReactNode
	triggerClassName?: string
	title: ReactNode
	description?: ReactNode
	/** the body, or a function of the Close button (null without JavaScript) */
	children: ReactNode | ((Close: CloseButton) => ReactNode)
	/** open when the page is served (e.g. to show a failed form's errors) */
	defaultOpen?: boolean
	/** 'center': a modal in the middle; 'left': a sheet from the left edge (navigation) */
	placement?: 'center' | 'left'
	/** 'alertdialog' for a confirmation */
	role?: 'dialog' | 'alertdialog'
	className?: string
	testId?: string
}
