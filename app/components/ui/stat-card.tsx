import type { ReactNode } from 'react'
import { cn } from '../../utils/cn.ts'

/** One figure with its name, an optional icon and a line of context under it. */
export function StatCard({
	label,
	value,
	icon,
	hint,
	className,
	testId,
}: {
	label: ReactNode
	value: ReactNode
	icon?: ReactNode
	hint?: ReactNode
	className?: string
	testId?: string
}) {
	return (
		<div
			className={cn('rounded-lg bg-white p-5 shadow-sm ring-1 ring-slate-200', className)}
			data-testid={testId}
		>
			<div className="flex items-center justify-between gap-3">
				<p className="text-sm font-medium text-slate-600">{label}</p>
				{icon ? (
					<span aria-hidden className="text-slate-500 [&>svg]:size-5">
						{icon}
					</span>
				) : null}
			</div>
			<p className="mt-2 text-2xl font-bold text-slate-900 tabular-nums">{value}</p>
			{hint ? <p className="mt-1 text-sm text-slate-600">{hint}</p> : null}
		</div>
	)
}
