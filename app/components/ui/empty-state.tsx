import type { ReactNode } from 'react'
import { cn } from '../../utils/cn.ts'

/** What an empty list says: what would be here, and the action that fills it. */
export function EmptyState({
	icon,
	title,
	children,
	action,
	className,
	testId,
}: {
	icon?: ReactNode
	title: ReactNode
	children?: ReactNode
	action?: ReactNode
	className?: string
	testId?: string
}) {
	return (
		<div
			className={cn(
				'flex flex-col items-center rounded-lg bg-white px-6 py-10 text-center shadow-sm ring-1 ring-slate-200',
				className,
			)}
			data-testid={testId}
		>
			{icon ? (
				<span
					aria-hidden
					className="mb-3 grid size-12 place-items-center rounded-full bg-indigo-50 text-indigo-700 [&>svg]:size-6"
				>
					{icon}
				</span>
			) : null}
			<p className="font-semibold text-slate-900">{title}</p>
			{children ? <div className="mt-1 max-w-md text-sm text-slate-600">{children}</div> : null}
			{action ? <div className="mt-4">{action}</div> : null}
		</div>
	)
}
