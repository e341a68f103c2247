import * as DropdownMenu from '@radix-ui/react-dropdown-menu'
import { useEffect, useRef } from 'react'
import { Link, useSubmit } from 'react-router'
import { cn } from '../../utils/cn.ts'
import type { MenuProps } from './menu-props.ts'

const itemClasses =
	'flex w-full cursor-default items-center gap-2 rounded px-3 py-2 text-left text-sm text-slate-700 outline-none select-none data-[highlighted]:bg-indigo-50 data-[highlighted]:text-indigo-900'

export function EnhancedMenu({
	trigger,
	triggerClassName,
	items,
	align = 'end',
	className,
	testId,
	openedBy,
	autoFocus,
}: MenuProps & {
	/** opened before this code arrived, and how: from the keyboard, the first item takes the focus */
	openedBy?: 'pointer' | 'keyboard' | null
	/** the native trigger had the focus: this one takes it */
	autoFocus?: boolean
}) {
	const submit = useSubmit()
	const triggerRef = useRef<HTMLButtonElement>(null)
	const focusFirstItem = useRef(openedBy === 'keyboard')
	useEffect(() => {
		if (autoFocus) triggerRef.current?.focus()
		// eslint-disable-next-line react-hooks/exhaustive-deps -- once, as it takes the native one's place
	}, [])
	return (
		<div className={cn('relative', className)} data-testid={testId}>
			<DropdownMenu.Root modal={false} defaultOpen={Boolean(openedBy)}>
				<DropdownMenu.Trigger ref={triggerRef} className={cn('cursor-pointer', triggerClassName)}>
					{trigger}
				</DropdownMenu.Trigger>
				<DropdownMenu.Portal>
					<DropdownMenu.Content
						// named by its trigger (Radix's aria-labelledby)
						align={align}
						sideOffset={8}
						className="z-40 w-56 rounded-md bg-white p-1 shadow-lg ring-1 ring-slate-200"
						onFocus={(event) => {
							// opened from the keyboard before Radix listened to it: as Radix does then
							if (!focusFirstItem.current || event.target !== event.currentTarget) return
							focusFirstItem.current = false
							event.currentTarget.querySelector<HTMLElement>('[role="menuitem"]')?.focus()
						}}
					>
						{items.map((item, index) => {
							const tone = item.tone === 'danger' ? 'text-red-700' : undefined
							const content = (
								<>
									{item.icon}
									{item.label}
								</>
							)
							return 'to' in item ? (
								<DropdownMenu.Item key={index} asChild className={cn(itemClasses, tone)}>
									<Link
										to={item.to}
										reloadDocument={item.download}
										download={item.download || undefined}
									>
										{content}
									</Link>
								</DropdownMenu.Item>
							) : (
								<DropdownMenu.Item
									key={index}
									className={cn(itemClasses, tone)}
									onSelect={() => void submit(item.fields, { method: 'post', action: item.action })}
								>
									{content}
								</DropdownMenu.Item>
							)
						})}
					</DropdownMenu.Content>
				</DropdownMenu.Portal>
			</DropdownMenu.Root>
		</div>
	)
}
