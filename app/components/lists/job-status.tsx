import { cn } from '../../utils/cn.ts'

// Job status everywhere: 0 pending, 1 processing, 2 success, 3 fail (SPEC.md section 3).
const STATUS = [
	{ label: 'Pending', className: 'bg-slate-100 text-slate-700 ring-slate-300' },
	{ label: 'Processing', className: 'bg-sky-50 text-sky-800 ring-sky-300' },
	{ label: 'Done', className: 'bg-emerald-50 text-emerald-800 ring-emerald-300' },
	{ label: 'Failed', className: 'bg-red-50 text-red-800 ring-red-300' },
] as const

const CANCELLED = { label: 'Cancelled', className: 'bg-slate-100 text-slate-700 ring-slate-300' }

/** A cancelled job ends as status 3 with the error 'Cancelled': one badge, not 'Failed' too. */
export function isCancelled(status: number, error: string | null | undefined) {
	return status === 3 && error === 'Cancelled'
}

export function JobStatusBadge({ status, error }: { status: number; error?: string | null }) {
	const s = isCancelled(status, error) ? CANCELLED : (STATUS[status] ?? STATUS[0])
	return (
		<span
			className={cn(
				'inline-flex rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset',
				s.className,
			)}
		>
			{s.label}
		</span>
	)
}

/** A job that finished but left part of its work undone (an upload with rejected leads). */
export function PartlyFailedBadge() {
	return (
		<span className="inline-flex rounded-full bg-amber-50 px-2 py-0.5 text-xs font-medium whitespace-nowrap text-amber-900 ring-1 ring-amber-300 ring-inset">
			Partly failed
		</span>
	)
}

export function ProgressBar({ value, label }: { value: number; label: string }) {
	const clamped = Math.max(0, Math.min(100, value))
	return (
		<div className="flex items-center gap-2">
			<div
				role="progressbar"
				aria-label={label}
				aria-valuenow={clamped}
				aria-valuemin={0}
				aria-valuemax={100}
				className="h-2 w-24 overflow-hidden rounded-full bg-slate-200"
			>
				<div
					className="h-full rounded-full bg-indigo-600 transition-all"
					style={{ width: `${clamped}%` }}
				/>
			</div>
			<span className="text-xs text-slate-600 tabular-nums">{clamped}%</span>
		</div>
	)
}

export const isRunning = (status: number) => status === 0 || status === 1
