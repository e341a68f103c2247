import { Link } from 'react-router'
import { useLiveRefresh } from '../../utils/use-live-refresh.ts'
import { Badge } from './badge.tsx'

export type BulkProgressView = {
	id: string
	label: string
	status: string
	total: number
	done: number
	skipped: number
	failed: number
	notes: { name: string; reason: string; outcome: 'skipped' | 'failed' }[]
	error: string | null
}

const TONES = { queued: 'slate', running: 'amber', done: 'green', failed: 'red' } as const

/**
 * A bulk action's progress and result (decision 0080): its counts, and the rows left alone
 * with why. Refreshes itself with JavaScript while it runs; without, a link refreshes it.
 */
export function BulkProgress({ bulk, closeTo }: { bulk: BulkProgressView; closeTo: string }) {
	const running = bulk.status === 'queued' || bulk.status === 'running'
	useLiveRefresh(running, 1500)
	const finished = bulk.done + bulk.skipped + bulk.failed
	const percent = bulk.total ? Math.min(100, Math.round((finished / bulk.total) * 100)) : 100
	return (
		<section
			aria-label="Bulk action"
			data-testid="bulk-progress"
			data-status={bulk.status}
			className="mb-4 rounded-lg bg-white p-4 text-sm shadow-sm ring-1 ring-slate-200"
		>
			<div className="flex flex-wrap items-center justify-between gap-3">
				<p className="font-semibold text-slate-900">
					{bulk.label}: {finished.toLocaleString('en')} of {bulk.total.toLocaleString('en')}{' '}
					<Badge tone={TONES[bulk.status as keyof typeof TONES] ?? 'slate'}>{bulk.status}</Badge>
				</p>
				<div className="flex gap-4">
					{running ? (
						<Link to="" reloadDocument className="font-medium text-indigo-700 hover:underline">
							Refresh
						</Link>
					) : null}
					<Link to={closeTo} className="font-medium text-indigo-700 hover:underline">
						Close
					</Link>
				</div>
			</div>
			<div
				role="progressbar"
				aria-label={`${bulk.label} progress`}
				aria-valuemin={0}
				aria-valuemax={100}
				aria-valuenow={percent}
				className="mt-2 h-2 overflow-hidden rounded bg-slate-100"
			>
				<div className="h-full bg-indigo-600" style={{ width: `${percent}%` }} />
			</div>
			<p className="mt-2 text-slate-700" data-testid="bulk-counts">
				{bulk.done} done · {bulk.skipped} skipped · {bulk.failed} failed
			</p>
			{bulk.error ? <p className="mt-1 text-red-700">{bulk.error}</p> : null}
			{bulk.notes.length ? (
				<ul className="mt-2 list-disc space-y-1 pl-5 text-slate-700" data-testid="bulk-notes">
					{bulk.notes.map((note, index) => (
						<li key={index}>
							<span className="font-medium">{note.name}</span>: {note.reason}
						</li>
					))}
				</ul>
			) : null}
		</section>
	)
}
