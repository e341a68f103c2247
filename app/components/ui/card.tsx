import type { ReactNode } from 'react'
import { cn } from '../../utils/cn.ts'

export function Card({
	children,
	className,
	id,
}: {
	children: ReactNode
	className?: string
	/** a link's target (#id) */
	id?: string
}) {
	return (
		<section
			id={id}
			className={cn(
				'rounded-lg bg-white p-6 shadow-sm ring-1 ring-slate-200 scroll-mt-4',
				className,
			)}
		>
			{children}
		</section>
	)
}

/** The page's title, with an optional icon (decorative), description and actions. */
export function PageHeader({
	title,
	description,
	actions,
	icon,
}: {
	title: string
	description?: ReactNode
	actions?: ReactNode
	icon?: ReactNode
}) {
	return (
		<header className="mb-6 flex flex-wrap items-end justify-between gap-4">
			<div className="flex min-w-0 items-start gap-3">
				{icon ? (
					<span
						aria-hidden
						className="mt-0.5 grid size-9 shrink-0 place-items-center rounded-md bg-indigo-50 text-indigo-700 [&>svg]:size-5"
					>
						{icon}
					</span>
				) : null}
				<div className="min-w-0">
					<h1 className="text-2xl font-bold text-slate-900">{title}</h1>
					{description ? <p className="mt-1 text-slate-600">{description}</p> : null}
				</div>
			</div>
			{actions}
		</header>
	)
}
