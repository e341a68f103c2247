import * as RadixDialog from '@radix-ui/react-dialog'
import { X } from 'lucide-react'
import { useEffect, useRef, useState, type ReactNode } from 'react'
import { useLocation } from 'react-router'
import { cn } from '../../utils/cn.ts'
import { buttonClasses } from './button.tsx'
import type { DialogProps } from './dialog-props.ts'

function Close({ children, className }: { children: ReactNode; className?: string }) {
	return (
		<RadixDialog.Close className={buttonClasses('secondary', className)}>
			{children}
		</RadixDialog.Close>
	)
}

export function EnhancedDialog({
	trigger,
	triggerClassName,
	title,
	description,
	children,
	defaultOpen,
	placement = 'center',
	role = 'dialog',
	className,
	testId,
	autoFocus,
	openOnMount,
}: DialogProps & {
	/** the native trigger had the focus: this one takes it */
	autoFocus?: boolean
	/** opened before this code arrived (unlike defaultOpen, not again after a navigation) */
	openOnMount?: boolean
}) {
	const [open, setOpen] = useState(Boolean(defaultOpen || openOnMount))
	const triggerRef = useRef<HTMLButtonElement>(null)
	useEffect(() => {
		// open, the dialog takes the focus itself (and gives it to the trigger when it closes)
		if (autoFocus && !open) triggerRef.current?.focus()
		// eslint-disable-next-line react-hooks/exhaustive-deps -- once, as it takes the native one's place
	}, [])
	// a link followed or a form answered from inside closes it, unless the answer opens it
	const location = useLocation()
	const [seen, setSeen] = useState(location.key)
	if (seen !== location.key) {
		setSeen(location.key)
		// open again only when the answer asks for it (a failed form's errors)
		setOpen(Boolean(defaultOpen))
	}
	return (
		<div className={className} data-testid={testId}>
			<RadixDialog.Root open={open} onOpenChange={setOpen}>
				<RadixDialog.Trigger ref={triggerRef} className={cn('cursor-pointer', triggerClassName)}>
					{trigger}
				</RadixDialog.Trigger>
				<RadixDialog.Portal>
					<RadixDialog.Overlay className="fixed inset-0 z-50 bg-slate-900/40" />
					<RadixDialog.Content
						role={role}
						className={cn(
							'fixed z-50 overflow-y-auto bg-white shadow-xl focus:outline-none',
							placement === 'left'
								? 'inset-y-0 left-0 w-80 max-w-[85vw] p-4'
								: 'top-1/2 left-1/2 max-h-[85vh] w-[min(32rem,calc(100vw-2rem))] -translate-x-1/2 -translate-y-1/2 rounded-lg p-6',
						)}
						// with no description, say so (Radix warns otherwise)
						{...(description ? {} : { 'aria-describedby': undefined })}
					>
						<div className="flex items-start justify-between gap-4">
							<RadixDialog.Title className="text-lg font-semibold text-slate-900">
								{title}
							</RadixDialog.Title>
							<RadixDialog.Close className="-m-1 rounded-md p-1 text-slate-500 hover:bg-slate-100 hover:text-slate-800 focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:outline-none">
								<X aria-hidden className="size-5" />
								<span className="sr-only">Close</span>
							</RadixDialog.Close>
						</div>
						{description ? (
							<RadixDialog.Description className="mt-1 text-sm text-slate-600">
								{description}
							</RadixDialog.Description>
						) : null}
						<div className="mt-4">
							{typeof children === 'function' ? children(Close) : children}
						</div>
					</RadixDialog.Content>
				</RadixDialog.Portal>
			</RadixDialog.Root>
		</div>
	)
}
