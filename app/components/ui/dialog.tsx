import type { ReactNode } from 'react'
import { Form } from 'react-router'
import { cn } from '../../utils/cn.ts'
import { Button, type ButtonVariant } from './button.tsx'
import type { CloseButton, DialogProps } from './dialog-props.ts'
import { useEnhancedOnUse } from './enhance.ts'

export type { CloseButton, DialogProps } from './dialog-props.ts'

const loadDialog = () => import('./dialog.enhanced.tsx')

/**
 * A modal dialog (Radix Dialog: focus kept inside, Escape closes, focus returns to the
 * trigger), whose code comes once the pointer or the focus reaches the trigger. Without
 * JavaScript, and if it cannot load, a <details> whose summary opens the same body in place.
 */
export function Dialog(props: DialogProps & { when?: () => boolean }) {
	const {
		hydrated,
		module,
		busy,
		waiting,
		openedBy,
		openNative,
		tookFocus,
		use,
		press,
		ask,
		rootRef,
	} = useEnhancedOnUse(loadDialog)
	// `when` (read once hydrated, on use): where the enhanced dialog is wanted at all
	const wanted = () => !props.when || props.when()
	if (module) {
		return (
			<module.EnhancedDialog {...props} openOnMount={openedBy !== null} autoFocus={tookFocus} />
		)
	}
	const body = typeof props.children === 'function' ? props.children(null) : props.children
	return (
		<details
			ref={rootRef}
			className={cn('group', props.className)}
			// opened while its code was on its way, and the code never came: open in place
			open={props.defaultOpen || openNative || undefined}
			aria-busy={busy || undefined}
			data-testid={props.testId}
			onPointerEnter={() => wanted() && use()}
			onFocus={() => wanted() && use()}
			onPointerDown={() => wanted() && press()}
		>
			<summary
				// once hydrated it is the button that opens the enhanced dialog (a click waits for its code)
				role={hydrated ? 'button' : undefined}
				aria-haspopup={hydrated ? 'dialog' : undefined}
				className={cn('cursor-pointer list-none', props.triggerClassName)}
				onClick={(event) => {
					if (!waiting || !wanted() || event.currentTarget.parentElement?.hasAttribute('open'))
						return
					event.preventDefault()
					ask()
				}}
			>
				{props.trigger}
			</summary>
			<div
				className={cn(
					'z-40 mt-2 rounded-lg bg-white p-4 shadow-lg ring-1 ring-slate-200',
					props.placement === 'left' && 'absolute inset-x-0 rounded-none',
				)}
			>
				<p className="font-semibold text-slate-900">{props.title}</p>
				{props.description ? (
					<div className="mt-1 text-sm text-slate-600">{props.description}</div>
				) : null}
				<div className="mt-3">{body}</div>
			</div>
		</details>
	)
}

/**
 * "Are you sure?" before an action: a dialog whose form posts `fields` (and any `children`
 * fields) to `action`. Without JavaScript the <details> shows the same form, which posts
 * directly.
 */
export function ConfirmDialog({
	trigger,
	triggerClassName = 'text-sm font-semibold text-red-700 hover:underline',
	title,
	description,
	confirmLabel,
	variant = 'danger',
	action,
	fields,
	children,
	defaultOpen,
	pending,
	testId,
}: {
	trigger: ReactNode
	triggerClassName?: string
	title: ReactNode
	description?: ReactNode
	confirmLabel: ReactNode
	variant?: ButtonVariant
	/** where the form posts: this page's action when absent */
	action?: string
	fields: Record<string, string>
	/** more of the form: fields, errors */
	children?: ReactNode
	defaultOpen?: boolean
	pending?: boolean
	testId?: string
}) {
	return (
		<Dialog
			trigger={trigger}
			triggerClassName={triggerClassName}
			title={title}
			description={description}
			defaultOpen={defaultOpen}
			role="alertdialog"
			testId={testId}
		>
			{(Close: CloseButton) => (
				<Form method="post" action={action} className="space-y-3">
					{Object.entries(fields).map(([key, value]) => (
						<input key={key} type="hidden" name={key} value={value} />
					))}
					{children}
					<div className="flex flex-wrap justify-end gap-2">
						{Close ? <Close className="px-3 py-1.5">Cancel</Close> : null}
						<Button
							type="submit"
							variant={variant}
							className="px-3 py-1.5"
							aria-disabled={pending || undefined}
						>
							{confirmLabel}
						</Button>
					</div>
				</Form>
			)}
		</Dialog>
	)
}
