import { useState } from 'react'
import { ChevronDown } from 'lucide-react'
import { cn } from '../../utils/cn.ts'
import { useEnhancedOnUse } from './enhance.ts'
import { ErrorList } from './field.tsx'
import { selectClasses, type SelectProps } from './select-props.ts'

export type { SelectOption, SelectProps } from './select-props.ts'

const loadSelect = () => import('./select.enhanced.tsx')

/**
 * A labelled choice of one option. The server renders a native <select name>, which posts the
 * form without JavaScript; once the pointer or the focus comes to it, a listbox (Radix Select)
 * takes its place and posts the same name and value through a hidden input.
 */
export function Select(props: SelectProps) {
	const { id, name, label, options, hint, errors, className, labelClassName } = props
	const { hydrated, module, busy, waiting, openedBy, tookFocus, use, ask, rootRef } =
		useEnhancedOnUse(loadSelect)
	const [value, setValue] = useState(props.defaultValue ?? options[0]?.value ?? '')
	const errorId = errors?.filter(Boolean).length ? `${id}-error` : undefined
	const hintId = hint ? `${id}-hint` : undefined
	const describedBy = cn(errorId, hintId) || undefined
	return (
		<div
			ref={rootRef}
			className={className}
			aria-busy={busy || undefined}
			onPointerEnter={use}
			onFocus={use}
		>
			<label
				id={`${id}-label`}
				htmlFor={id}
				className={cn('block text-sm font-medium text-slate-800', labelClassName)}
			>
				{label}
			</label>
			{module ? (
				<module.EnhancedSelect
					{...props}
					value={value}
					onChange={(next: string, input: HTMLInputElement) => {
						setValue(next)
						props.onValueChange?.(next, input)
					}}
					describedBy={describedBy}
					defaultOpen={openedBy !== null}
					autoFocus={tookFocus || openedBy !== null}
				/>
			) : (
				<div className="relative mt-1">
					<select
						id={id}
						name={name}
						required={props.required}
						disabled={props.disabled}
						// uncontrolled as served; kept in state once hydrated so that the enhanced
						// control starts from what was picked meanwhile
						{...(hydrated
							? {
									value,
									onChange: (event) => {
										setValue(event.currentTarget.value)
										props.onValueChange?.(event.currentTarget.value, event.currentTarget)
									},
								}
							: { defaultValue: props.defaultValue })}
						onMouseDown={(event) => {
							if (!waiting || event.button !== 0) return
							event.preventDefault()
							event.currentTarget.focus()
							ask()
						}}
						onKeyDown={(event) => {
							if (!waiting || (event.key !== 'Enter' && event.key !== ' ')) return
							event.preventDefault()
							ask()
						}}
						aria-invalid={errorId ? true : undefined}
						aria-describedby={describedBy}
						className={cn(selectClasses, props.controlClassName)}
					>
						{options.map((option) => (
							<option key={option.value} value={option.value} disabled={option.disabled}>
								{option.label}
							</option>
						))}
					</select>
					<ChevronDown
						aria-hidden
						className="pointer-events-none absolute top-1/2 right-3 size-4 -translate-y-1/2 text-slate-500"
					/>
				</div>
			)}
			{hint ? (
				<p id={hintId} className="mt-1 text-sm text-slate-600">
					{hint}
				</p>
			) : null}
			<ErrorList id={errorId} errors={errors} />
		</div>
	)
}
