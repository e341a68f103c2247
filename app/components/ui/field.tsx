import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes } from 'react'
import { cn } from '../../utils/cn.ts'

export function ErrorList({ id, errors }: { id?: string; errors?: readonly string[] | null }) {
	const list = errors?.filter(Boolean)
	if (!list?.length) return null
	return (
		<ul id={id} className="mt-1 space-y-0.5 text-sm text-red-700">
			{list.map((error) => (
				<li key={error}>{error}</li>
			))}
		</ul>
	)
}

export const inputClasses =
	'block w-full rounded-md border-0 bg-white px-3 py-2 text-slate-900 shadow-sm ring-1 ring-slate-300 ring-inset placeholder:text-slate-400 focus:ring-2 focus:ring-indigo-600 focus:ring-inset aria-[invalid=true]:ring-red-600 sm:text-sm'

/** A labelled input with its errors underneath, wired for screen readers. */
export function Field({
	label,
	hint,
	errors,
	inputProps,
	className,
}: {
	label: ReactNode
	hint?: ReactNode
	errors?: readonly string[] | null
	inputProps: InputHTMLAttributes<HTMLInputElement> & { id: string }
	className?: string
}) {
	const errorId = errors?.length ? `${inputProps.id}-error` : undefined
	const hintId = hint ? `${inputProps.id}-hint` : undefined
	return (
		<div className={className}>
			<label htmlFor={inputProps.id} className="block text-sm font-medium text-slate-800">
				{label}
			</label>
			<input
				{...inputProps}
				aria-invalid={errorId ? true : undefined}
				aria-describedby={cn(errorId, hintId) || undefined}
				className={cn('mt-1', inputClasses, inputProps.className)}
			/>
			{hint ? (
				<p id={hintId} className="mt-1 text-sm text-slate-600">
					{hint}
				</p>
			) : null}
			<ErrorList id={errorId} errors={errors} />
		</div>
	)
}

/** A labelled select of `options` with its errors underneath, wired for screen readers. */
export function SelectField({
	label,
	errors,
	errorId,
	selectProps,
	options,
}: {
	label: ReactNode
	errors?: readonly string[] | null
	errorId: string
	selectProps: SelectHTMLAttributes<HTMLSelectElement> & { id: string }
	options: readonly { id: string; name: string }[]
}) {
	const hasErrors = Boolean(errors?.filter(Boolean).length)
	return (
		<div>
			<label htmlFor={selectProps.id} className="block text-sm font-medium text-slate-800">
				{label}
			</label>
			<select
				{...selectProps}
				aria-invalid={hasErrors || undefined}
				aria-describedby={hasErrors ? errorId : undefined}
				className={cn('mt-1', inputClasses, selectProps.className)}
			>
				{options.map((option) => (
					<option key={option.id} value={option.id}>
						{option.name}
					</option>
				))}
			</select>
			<ErrorList id={errorId} errors={errors} />
		</div>
	)
}

export function FormErrors({ id, errors }: { id?: string; errors?: readonly string[] | null }) {
	if (!errors?.filter(Boolean).length) return null
	return (
		<div id={id} role="alert" className="rounded-md bg-red-50 p-3 ring-1 ring-red-200">
			<ErrorList errors={errors} />
		</div>
	)
}
