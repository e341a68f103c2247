import * as RadixSelect from '@radix-ui/react-select'
import { Check, ChevronDown } from 'lucide-react'
import { useEffect, useRef } from 'react'
import { cn } from '../../utils/cn.ts'
import { selectClasses, type SelectProps } from './select-props.ts'

// Radix refuses an item whose value is the empty string ("All domains", "Pick a domain"): it
// stands for the empty value inside the listbox only; the hidden input posts ''.
const EMPTY = '\u0000empty'
const toRadix = (value: string) => (value === '' ? EMPTY : value)
const fromRadix = (value: string) => (value === EMPTY ? '' : value)

export function EnhancedSelect({
	id,
	name,
	options,
	required,
	disabled,
	errors,
	controlClassName,
	value,
	onChange,
	describedBy,
	defaultOpen,
	autoFocus,
}: SelectProps & {
	value: string
	onChange: (value: string, input: HTMLInputElement) => void
	describedBy?: string
	/** asked open before this code arrived (a click, Enter or Space on the native select) */
	defaultOpen?: boolean
	/** the native select had the focus: the trigger takes it */
	autoFocus?: boolean
}) {
	const input = useRef<HTMLInputElement>(null)
	const trigger = useRef<HTMLButtonElement>(null)
	useEffect(() => {
		// open, the listbox takes the focus itself (and gives it to the trigger when it closes)
		if (autoFocus && !defaultOpen) trigger.current?.focus()
		// eslint-disable-next-line react-hooks/exhaustive-deps -- once, as it takes the native one's place
	}, [])
	const invalid = Boolean(errors?.filter(Boolean).length)
	return (
		<>
			<input ref={input} type="hidden" name={name} value={value} />
			<RadixSelect.Root
				value={toRadix(value)}
				onValueChange={(next) => {
					const plain = fromRadix(next)
					if (input.current) input.current.value = plain
					onChange(plain, input.current!)
				}}
				required={required}
				disabled={disabled}
				defaultOpen={defaultOpen}
			>
				<RadixSelect.Trigger
					ref={trigger}
					id={id}
					aria-labelledby={`${id}-label`}
					aria-invalid={invalid || undefined}
					aria-describedby={describedBy}
					className={cn(
						selectClasses,
						'relative mt-1 flex items-center text-left data-[placeholder]:text-slate-500',
						controlClassName,
					)}
				>
					<span className="min-w-0 flex-1 truncate">
						<RadixSelect.Value />
					</span>
					<RadixSelect.Icon asChild>
						<ChevronDown
							aria-hidden
							className="absolute top-1/2 right-3 size-4 -translate-y-1/2 text-slate-500"
						/>
					</RadixSelect.Icon>
				</RadixSelect.Trigger>
				<RadixSelect.Portal>
					<RadixSelect.Content
						position="popper"
						sideOffset={4}
						// above the toasts (toasts.tsx names the layers)
						className="z-40 max-h-[min(var(--radix-select-content-available-height),20rem)] min-w-[var(--radix-select-trigger-width)] overflow-hidden rounded-md bg-white shadow-lg ring-1 ring-slate-200"
					>
						<RadixSelect.Viewport className="p-1">
							{options.map((option) => (
								<RadixSelect.Item
									key={option.value}
									value={toRadix(option.value)}
									disabled={option.disabled}
									className="relative flex cursor-default items-center rounded py-2 pr-3 pl-8 text-sm text-slate-800 outline-none select-none data-[disabled]:text-slate-500 data-[highlighted]:bg-indigo-50 data-[highlighted]:text-indigo-900"
								>
									<RadixSelect.ItemIndicator className="absolute left-2 inline-flex">
										<Check aria-hidden className="size-4" />
									</RadixSelect.ItemIndicator>
									<RadixSelect.ItemText>{option.label}</RadixSelect.ItemText>
								</RadixSelect.Item>
							))}
						</RadixSelect.Viewport>
					</RadixSelect.Content>
				</RadixSelect.Portal>
			</RadixSelect.Root>
		</>
	)
}
