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

export function Badge({
	children,
	tone = 'slate',
}: {
	children: ReactNode
	tone?: 'slate' | 'indigo' | 'amber' | 'green' | 'red'
}) {
	const tones = {
		slate: 'bg-slate-100 text-slate-700 ring-slate-200',
		indigo: 'bg-indigo-50 text-indigo-800 ring-indigo-200',
		amber: 'bg-amber-50 text-amber-800 ring-amber-200',
		green: 'bg-green-50 text-green-800 ring-green-200',
		red: 'bg-red-50 text-red-800 ring-red-200',
	}
	return (
		<span
			className={cn(
				'inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset',
				tones[tone],
			)}
		>
			{children}
		</span>
	)
}
