import type { ReactNode } from 'react'
import { cn } from '../../utils/cn.ts'

export function Card({ children, className }: { children: ReactNode; className?: string }) {
	return (
		<section className={cn('rounded-lg bg-white p-6 shadow-sm ring-1 ring-slate-200', className)}>
			{children}
		</section>
	)
}

export function PageHeader({
	title,
	description,
	actions,
}: {
	title: string
	description?: ReactNode
	actions?: ReactNode
}) {
	return (
		<header className="mb-6 flex flex-wrap items-end justify-between gap-4">
			<div>
				<h1 className="text-2xl font-bold text-slate-900">{title}</h1>
				{description ? <p className="mt-1 text-slate-600">{description}</p> : null}
			</div>
			{actions}
		</header>
	)
}
