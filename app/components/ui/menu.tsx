import type { ReactNode } from 'react'
import { Form, Link } from 'react-router'
import { cn } from '../../utils/cn.ts'
import { useEnhancedOnUse } from './enhance.ts'
import type { MenuProps } from './menu-props.ts'

export type { MenuEntry, MenuProps } from './menu-props.ts'

const loadMenu = () => import('./menu.enhanced.tsx')

export const menuItemClasses =
	'flex w-full items-center gap-2 rounded px-3 py-2 text-left text-sm text-slate-700 hover:bg-slate-100 focus-visible:bg-slate-100 focus-visible:outline-none'

/**
 * A dropdown of actions: links, and forms that post. Radix DropdownMenu once the pointer or the
 * focus comes to it (arrow keys, typeahead, Escape); without JavaScript a <details> with the
 * same links and forms.
 */
export function Menu(props: MenuProps) {
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
	} = useEnhancedOnUse(loadMenu)
	if (module) {
		return (
			<module.EnhancedMenu
				{...props}
				openedBy={openedBy}
				autoFocus={tookFocus || openedBy !== null}
			/>
		)
	}
	return (
		<details
			ref={rootRef}
			className={cn('relative', props.className)}
			// opened while its code was on its way, and the code never came: open in place
			open={openNative || undefined}
			aria-busy={busy || undefined}
			data-testid={props.testId}
			onPointerEnter={use}
			onFocus={use}
			onPointerDown={press}
		>
			<summary
				// once hydrated it is the button that opens the enhanced menu (a click waits for its code)
				role={hydrated ? 'button' : undefined}
				aria-haspopup={hydrated ? 'menu' : undefined}
				className={cn('cursor-pointer list-none', props.triggerClassName)}
				onClick={(event) => {
					if (!waiting || event.currentTarget.parentElement?.hasAttribute('open')) return
					event.preventDefault()
					// a click from the keyboard (Enter, Space) has no pointer detail
					ask(event.detail === 0 ? 'keyboard' : 'pointer')
				}}
			>
				{props.trigger}
			</summary>
			<ul
				aria-label={props.label}
				className={cn(
					'absolute z-40 mt-2 w-56 rounded-md bg-white p-1 shadow-lg ring-1 ring-slate-200',
					props.align === 'start' ? 'left-0' : 'right-0',
				)}
			>
				{props.items.map((item, index) => (
					<li key={index}>
						<MenuEntryFallback item={item} />
					</li>
				))}
			</ul>
		</details>
	)
}

function MenuEntryFallback({ item }: { item: MenuProps['items'][number] }) {
	const content: ReactNode = (
		<>
			{item.icon}
			{item.label}
		</>
	)
	const tone = item.tone === 'danger' ? 'text-red-700' : undefined
	if ('to' in item) {
		return (
			<Link
				to={item.to}
				reloadDocument={item.download}
				download={item.download || undefined}
				className={cn(menuItemClasses, tone)}
			>
				{content}
			</Link>
		)
	}
	return (
		<Form method="post" action={item.action}>
			{Object.entries(item.fields).map(([key, value]) => (
				<input key={key} type="hidden" name={key} value={value} />
			))}
			<button type="submit" className={cn(menuItemClasses, tone)}>
				{content}
			</button>
		</Form>
	)
}
