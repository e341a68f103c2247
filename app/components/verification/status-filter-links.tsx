import { Link } from 'react-router'
import {
	STATUS_FILTERS,
	STATUS_INFO,
	type StatusFilter,
} from '../../services/verification/statuses.ts'

/** "Email status: All · Valid · Catch-all · …": the list page's filter by our status. */
export function StatusFilterLinks({
	current,
	link,
}: {
	current: StatusFilter | undefined
	link: (status: StatusFilter | undefined) => string
}) {
	const item = (status: StatusFilter | undefined, label: string) => (
		<Link
			key={status ?? 'all'}
			to={link(status) || '?'}
			aria-current={current === status ? 'true' : undefined}
			className={`rounded px-2 py-1 ${current === status ? 'bg-indigo-50 font-semibold text-indigo-800' : 'text-slate-600 hover:bg-slate-100'}`}
		>
			{label}
		</Link>
	)
	return (
		<div className="mb-3 flex flex-wrap items-center gap-2 text-sm text-slate-700">
			<span id="status-filter">Email status</span>
			<span className="flex flex-wrap gap-1" role="group" aria-labelledby="status-filter">
				{item(undefined, 'All')}
				{STATUS_FILTERS.map((s) => item(s, STATUS_INFO[s].label))}
			</span>
		</div>
	)
}
