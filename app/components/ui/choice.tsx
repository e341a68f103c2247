import type { InputHTMLAttributes, ReactNode } from 'react'
import { cn } from '../../utils/cn.ts'
import { ErrorList } from './field.tsx'

/** A fieldset of radios or checkboxes, with its legend, hint and errors. */
export function ChoiceGroup({
	legend,
	hint,
	errors,
	errorId,
	children,
	className,
}: {
	legend: ReactNode
	hint?: ReactNode
	errors?: readonly string[] | null
	errorId: string
	children: ReactNode
	className?: string
}) {
	const hasErrors = Boolean(errors?.filter(Boolean).length)
	return (
		<fieldset
			className={className}
			aria-describedby={hasErrors ? errorId : undefined}
			aria-invalid={hasErrors || undefined}
		>
			<legend className="text-sm font-medium text-slate-800">{legend}</legend>
			{hint ? <p className="mt-1 text-sm text-slate-600">{hint}</p> : null}
			<div className="mt-2 space-y-2">{children}</div>
			<ErrorList id={errorId} errors={errors} />
		</fieldset>
	)
}

/** One radio or checkbox with its label and an optional description. */
export function Choice({
	label,
	description,
	inputProps,
}: {
	label: ReactNode
	description?: ReactNode
	inputProps: InputHTMLAttributes<HTMLInputElement> & { id: string }
}) {
	const descriptionId = description ? `${inputProps.id}-description` : undefined
	return (
		<div className="flex items-start gap-3">
			<input
				{...inputProps}
				aria-describedby={cn(inputProps['aria-describedby'], descriptionId) || undefined}
				className={cn(
					'mt-0.5 size-4 shrink-0 border-slate-300 text-indigo-700 accent-indigo-700 focus:ring-indigo-600',
					inputProps.type === 'checkbox' ? 'rounded' : 'rounded-full',
					inputProps.className,
				)}
			/>
			<div className="text-sm">
				<label htmlFor={inputProps.id} className="font-medium text-slate-800">
					{label}
				</label>
				{description ? (
					<p id={descriptionId} className="text-slate-600">
						{description}
					</p>
				) : null}
			</div>
		</div>
	)
}

// Badge has its own module; kept importable from here
export { Badge } from './badge.tsx'
