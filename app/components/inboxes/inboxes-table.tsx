import { Info } from 'lucide-react'
import { Form } from 'react-router'
import { Button } from '../ui/button.tsx'
import { Badge } from '../ui/choice.tsx'
import { DataTable } from '../ui/data-table.tsx'
import { Tooltip } from '../ui/tooltip.tsx'

export type InboxRow = {
	id: string
	address: string
	name: string
	provider: string
	domain: string | null
	workspace: string | null
	status: string
	period: string | null
}

const TONES = { active: 'green', cancelling: 'amber', cancelled: 'slate' } as const

/** The inboxes of /inboxes, each with its cancel at period end or resume. */
export function InboxesTable({ inboxes, canChange }: { inboxes: InboxRow[]; canChange: boolean }) {
	return (
		<DataTable
			label="Inboxes"
			caption
			style="plain"
			testId="inboxes"
			columns={[
				{ label: 'Inbox' },
				{ label: 'Name' },
				{ label: 'Domain' },
				{ label: 'Workspace' },
				{
					label: (
						<span className="inline-flex items-center gap-1">
							Status
							<Tooltip content="Active: sending, renews monthly. Cancelled at period end: works until its paid month ends.">
								<button
									type="button"
									className="rounded-full text-slate-500 hover:text-slate-800 focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:outline-none"
								>
									<Info aria-hidden className="size-4" />
									<span className="sr-only">About the statuses</span>
								</button>
							</Tooltip>
						</span>
					),
				},
				{ label: 'Renews or ends' },
				...(canChange ? [{ label: 'Actions', hidden: true }] : []),
			]}
		>
			{inboxes.map((i) => (
				<tr key={i.id} data-inbox={i.address}>
					<th scope="row" className="px-4 py-3 text-left font-medium text-slate-900">
						{i.address}
						<span className="ml-2 text-xs text-slate-500">{i.provider}</span>
					</th>
					<td className="px-4 py-3 text-slate-700">{i.name || '—'}</td>
					<td className="px-4 py-3 text-slate-700">{i.domain ?? '—'}</td>
					<td className="px-4 py-3 text-slate-700">{i.workspace ?? 'Unassigned'}</td>
					<td className="px-4 py-3">
						<Badge tone={TONES[i.status as keyof typeof TONES] ?? 'slate'}>
							{i.status === 'cancelling' ? 'cancelled at period end' : i.status}
						</Badge>
					</td>
					<td className="px-4 py-3 whitespace-nowrap text-slate-700">{i.period ?? '—'}</td>
					{canChange ? (
						<td className="px-4 py-3 text-right whitespace-nowrap">
							{i.status === 'active' || i.status === 'cancelling' ? (
								<Form method="post">
									<input type="hidden" name="id" value={i.id} />
									{i.status === 'cancelling' ? (
										<Button type="submit" name="intent" value="resume" variant="secondary">
											Resume<span className="sr-only"> {i.address}</span>
										</Button>
									) : (
										<Button type="submit" name="intent" value="cancel" variant="secondary">
											Cancel at period end<span className="sr-only"> {i.address}</span>
										</Button>
									)}
								</Form>
							) : null}
						</td>
					) : null}
				</tr>
			))}
		</DataTable>
	)
}
