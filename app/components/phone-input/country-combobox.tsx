import { useId, useMemo, useRef, useState, type KeyboardEvent } from 'react'
import { cn } from '../../utils/cn.ts'
import { inputClasses } from '../ui/field.tsx'
import { countryLabel, filterCountries, type Country } from './phone.ts'

/** SPEC.md section 9: what every searchable dropdown says when nothing matches. */
export const NO_MATCH_TEXT = 'Sorry, no matching options.'

/**
 * A searchable country picker (the WAI-ARIA combobox pattern with a listbox popup):
 * type to filter, arrows to move, Enter to choose, Escape to close. The chosen
 * country is posted in a hidden input called `name`.
 */
export function CountryCombobox({
	id,
	name,
	label,
	countries,
	value,
	onChange,
	invalid,
	describedBy,
}: {
	id: string
	name: string
	label: string
	countries: Country[]
	value: Country
	onChange: (country: Country) => void
	invalid?: boolean
	describedBy?: string
}) {
	const listId = useId()
	const [open, setOpen] = useState(false)
	const [query, setQuery] = useState('')
	const [active, setActive] = useState(0)
	const listRef = useRef<HTMLUListElement>(null)
	const options = useMemo(() => filterCountries(query, countries), [query, countries])

	function openList(nextQuery = '') {
		setQuery(nextQuery)
		const list = filterCountries(nextQuery, countries)
		const index = nextQuery ? 0 : Math.max(0, list.indexOf(value))
		setActive(index)
		setOpen(true)
		requestAnimationFrame(() =>
			listRef.current?.children[index]?.scrollIntoView?.({ block: 'nearest' }),
		)
	}

	function choose(country: Country) {
		onChange(country)
		setOpen(false)
		setQuery('')
	}

	function move(to: number) {
		if (options.length === 0) return
		const index = Math.max(0, Math.min(options.length - 1, to))
		setActive(index)
		listRef.current?.children[index]?.scrollIntoView?.({ block: 'nearest' })
	}

	function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
		switch (event.key) {
			case 'ArrowDown':
				event.preventDefault()
				if (!open) openList()
				else move(active + 1)
				break
			case 'ArrowUp':
				event.preventDefault()
				if (!open) openList()
				else move(active - 1)
				break
			case 'Home':
				if (open) {
					event.preventDefault()
					move(0)
				}
				break
			case 'End':
				if (open) {
					event.preventDefault()
					move(options.length - 1)
				}
				break
			case 'Enter':
				if (open) {
					event.preventDefault()
					const option = options[active]
					if (option) choose(option)
				}
				break
			case 'Escape':
				if (open) {
					event.preventDefault()
					setOpen(false)
					setQuery('')
				}
				break
			case 'Tab':
				setOpen(false)
				setQuery('')
				break
		}
	}

	const activeOption = open ? options[active] : undefined
	return (
		<div className="relative">
			<label htmlFor={id} className="sr-only">
				{label}
			</label>
			<input type="hidden" name={name} value={value.code} />
			<input
				id={id}
				type="text"
				role="combobox"
				aria-expanded={open}
				aria-controls={listId}
				aria-autocomplete="list"
				aria-activedescendant={activeOption ? `${listId}-${activeOption.code}` : undefined}
				aria-invalid={invalid || undefined}
				aria-describedby={describedBy}
				autoComplete="off"
				spellCheck={false}
				value={open ? query : countryLabel(value)}
				onChange={(event) => openList(event.currentTarget.value)}
				onFocus={(event) => event.currentTarget.select()}
				onClick={() => (open ? null : openList())}
				onBlur={() => {
					setOpen(false)
					setQuery('')
				}}
				onKeyDown={onKeyDown}
				className={cn(inputClasses, 'pr-8')}
				data-testid="phone-country"
			/>
			<span
				aria-hidden
				className="pointer-events-none absolute inset-y-0 right-2 flex items-center text-slate-500"
			>
				▾
			</span>
			<ul
				ref={listRef}
				id={listId}
				role="listbox"
				aria-label={label}
				hidden={!open}
				className="absolute z-40 mt-1 max-h-64 w-full overflow-auto rounded-md bg-white py-1 text-sm shadow-lg ring-1 ring-slate-200"
			>
				{options.map((country, index) => (
					<li
						key={country.code}
						id={`${listId}-${country.code}`}
						role="option"
						aria-selected={country.code === value.code}
						// mousedown, not click: the input's blur would close the list first
						onMouseDown={(event) => {
							event.preventDefault()
							choose(country)
						}}
						onMouseMove={() => setActive(index)}
						className={cn(
							'cursor-pointer px-3 py-1.5',
							index === active ? 'bg-indigo-50 text-indigo-900' : 'text-slate-800',
							country.code === value.code && 'font-semibold',
						)}
					>
						{countryLabel(country)}
					</li>
				))}
			</ul>
			{/* always present, so screen readers announce the change */}
			<p
				role="status"
				className={
					open && options.length === 0
						? 'absolute z-40 mt-1 w-full rounded-md bg-white px-3 py-2 text-sm text-slate-600 shadow-lg ring-1 ring-slate-200'
						: 'sr-only'
				}
			>
				{open && options.length === 0 ? NO_MATCH_TEXT : ''}
			</p>
		</div>
	)
}
