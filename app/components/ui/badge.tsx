import type { ReactNode } from 'react'
import { cn } from '../../utils/cn.ts'

const tones = {
	slate: 'bg-slate-100 text-slate-700 ring-slate-200',
	indigo: 'bg-indigo-50 text-indigo-800 ring-indigo-200',
	amber: 'bg-amber-50 text-amber-800 ring-amber-200',
	green: 'bg-green-50 text-green-800 ring-green-200',
	red: 'bg-red-50 text-red-800 ring-red-200',
} as const

export type BadgeTone = keyof typeof tones

/** A short status word in a coloured pill, with an optional icon (decorative). */
export function Badge({
	children,
	tone = 'slate',
	icon,
	className,
}: {
	children: ReactNode
	tone?: BadgeTone
	icon?: ReactNode
	className?: string
}) {
	return (
		<span
			className={cn(
				'inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset [&>svg]:size-3.5 [&>svg]:shrink-0',
				tones[tone],
				className,
			)}
		>
			{icon}
			{children}
		</span>
	)
}
