import type { ButtonHTMLAttributes } from 'react'
import { cn } from '../../utils/cn.ts'

const variants = {
	primary:
		'bg-indigo-700 text-white hover:bg-indigo-800 focus-visible:ring-indigo-500 disabled:bg-indigo-400',
	secondary:
		'bg-white text-slate-800 ring-1 ring-slate-300 ring-inset hover:bg-slate-50 focus-visible:ring-indigo-500',
	danger: 'bg-red-700 text-white hover:bg-red-800 focus-visible:ring-red-500',
	ghost: 'text-slate-700 hover:bg-slate-100 focus-visible:ring-indigo-500',
} as const

export type ButtonVariant = keyof typeof variants

export function buttonClasses(variant: ButtonVariant = 'primary', className?: string) {
	return cn(
		'inline-flex items-center justify-center gap-2 rounded-md px-4 py-2 text-sm font-semibold shadow-sm transition-colors focus-visible:ring-2 focus-visible:ring-offset-2 focus-visible:outline-none disabled:cursor-not-allowed',
		variants[variant],
		className,
	)
}

export function Button({
	variant = 'primary',
	className,
	...props
}: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: ButtonVariant }) {
	return <button className={buttonClasses(variant, className)} {...props} />
}

/** A submit button that shows the form is on its way (with JavaScript on). */
export function SubmitButton({
	pending,
	pendingText,
	children,
	...props
}: ButtonHTMLAttributes<HTMLButtonElement> & {
	variant?: ButtonVariant
	pending?: boolean
	pendingText?: string
}) {
	return (
		<Button type="submit" aria-disabled={pending || undefined} {...props}>
			{pending ? (
				<>
					<span
						aria-hidden
						className="size-4 animate-spin rounded-full border-2 border-current border-t-transparent"
					/>
					{pendingText ?? children}
				</>
			) : (
				children
			)}
		</Button>
	)
}
