import type { InboxBeside, InboxesBeside } from '../../services/inboxes/emailbison-view.server.ts'
import { Badge } from '../ui/badge.tsx'
import { DataTable, type RowColumn } from '../ui/data-table.tsx'

function EmailBisonCell({ inbox, read }: { inbox: InboxBeside; read: boolean }) {
	if (!read) return <span className="text-slate-500">—</span>
	const eb = inbox.emailBison
	if (!eb) return <span className="text-slate-600">Not in the EmailBison workspace</span>
	return (
		<div className="space-y-0.5">
			<div className="flex flex-wrap items-center gap-2">
				{eb.connected === null ? null : (
					<Badge tone={eb.connected ? 'green' : 'red'}>
						{eb.connected ? 'Connected' : 'Not connected'}
					</Badge>
				)}
				{eb.dailyLimit === null ? null : <span>{eb.dailyLimit} a day</span>}
				{eb.warmup === null ? null : <span>Warm-up: {eb.warmup}</span>}
			</div>
			{eb.unread.length ? (
				<p className="text-xs text-slate-600">
					Could not read from EmailBison: {eb.unread.join(', ')}
				</p>
			) : null}
		</div>
	)
}

/** Issue 38 point 4: the domain's inboxes as we ordered them, beside EmailBison's own view. */
export function InboxesBesideEmailBison({ view }: { view: InboxesBeside }) {
	const read = view.emailBison.state === 'read'
	const columns: RowColumn<InboxBeside>[] = [
		{ key: 'address', label: 'Inbox', rowHeader: true, nowrap: true, cell: (i) => i.address },
		{
			key: 'ours',
			label: 'Our order',
			nowrap: true,
			cell: (i) => `${i.provider === 'microsoft' ? 'Microsoft' : 'Google'} · ${i.status}`,
		},
		{
			key: 'emailbison',
			label: 'EmailBison',
			cell: (i) => <EmailBisonCell inbox={i} read={read} />,
		},
	]
	return (
		<section aria-labelledby="inboxes-beside" className="mt-4" data-testid="inboxes-beside">
			<h2 id="inboxes-beside" className="mb-2 text-base font-semibold text-slate-900">
				Inboxes on this domain
			</h2>
			{view.emailBison.state === 'not-connected' ? (
				<p className="mb-2 text-sm text-slate-600">
					Connect EmailBison in Settings to see its view of these inboxes.
				</p>
			) : view.emailBison.state === 'error' ? (
				<p className="mb-2 text-sm text-red-700" role="status">
					EmailBison’s view could not be read: {view.emailBison.message}
				</p>
			) : null}
			{view.inboxes.length ? (
				<DataTable
					label="Inboxes on this domain"
					columns={columns}
					rows={view.inboxes}
					rowKey={(i) => i.id}
				/>
			) : (
				<p className="text-sm text-slate-600">No inboxes on this domain.</p>
			)}
		</section>
	)
}
