import type { SubmissionResult } from '@conform-to/react'
import { Form, useLocation } from 'react-router'
import type { DnsResult } from '../../services/domains/domains.server.ts'
import type { DomainHealthView } from '../../services/domain-health/health.server.ts'
import type { TableSort } from '../../utils/table-sort.ts'
import { BulkToolbar } from '../ui/bulk-toolbar.tsx'
import { TableFilter } from '../ui/table-filter.tsx'
import { Button } from '../ui/button.tsx'
import { Badge } from '../ui/choice.tsx'
import { DataTable, type RowColumn, type TablePreferencesView } from '../ui/data-table.tsx'
import { ConfirmDialog } from '../ui/dialog.tsx'
import { LocalTime } from '../ui/local-time.tsx'
import { PageLinks } from '../ui/page-links.tsx'
import { Tooltip } from '../ui/tooltip.tsx'
import { MoveToWorkspace } from '../workspaces/move-to-workspace.tsx'
import { HealthGrade } from './health-card.tsx'

export type DomainRow = {
	id: string
	/** as stored: punycode for an international name */
	name: string
	/** as people read it: Unicode */
	display: string
	status: string
	workspace: string | null
	canMove: boolean
	subscribedUntil: string | null
	forwardTo: string | null
	redirectCode: number | null
	dns: DnsResult | null
	checkedAt: string | null
	addedAt: string
	/** the health checks' grade (issue 38); absent: never checked */
	health?: Pick<DomainHealthView, 'grade' | 'status' | 'pending' | 'checkedAt'>
}

export const DOMAINS_BULK_FORM = 'domains-bulk'

/**
 * Hidden until the user shows them (Columns): with them, the table is wider than the page at
 * 1280 px and the sticky actions cover the columns beside them (decision 0100).
 */
export const DOMAIN_COLUMNS_HIDDEN_AT_FIRST = ['forwarding', 'added']

function Check({ ok, label, detail }: { ok: boolean; label: string; detail?: string | null }) {
	return (
		<li className="flex items-center gap-1" title={detail ?? undefined}>
			<span aria-hidden className={ok ? 'text-green-700' : 'text-red-700'}>
				{ok ? '✓' : '✗'}
			</span>
			<span className="text-slate-700">
				{label}
				<span className="sr-only">{ok ? ' found' : ' missing'}</span>
			</span>
		</li>
	)
}

/**
 * The Health column: the health checks' grade (a link to the domain's card) over the DNS
 * check's records and its time. One column, wrapping in a narrow track, so the table fits
 * beside the sticky actions at 1280 px (decision 0100).
 */
function HealthSummary({ row, locale }: { row: DomainRow; locale: string }) {
	return (
		<div className="w-40 space-y-1">
			<HealthGrade health={row.health} href={`/domains/${row.id}/health`} />
			<DnsHealth row={row} locale={locale} />
		</div>
	)
}

function DnsHealth({ row, locale }: { row: DomainRow; locale: string }) {
	const { dns, checkedAt } = row
	if (!dns || (dns.pending && !checkedAt))
		return <p className="text-xs text-slate-500">Checking DNS…</p>
	return (
		<div>
			<ul className="flex flex-wrap gap-x-3 text-xs" aria-label="DNS records">
				<Check ok={(dns.mx?.length ?? 0) > 0} label="MX" detail={dns.mx?.join(', ')} />
				<Check ok={Boolean(dns.spf)} label="SPF" detail={dns.spf} />
				<Check ok={Boolean(dns.dmarc)} label="DMARC" detail={dns.dmarc} />
				<Check
					ok={Boolean(dns.forwarding?.ok)}
					label="Forwarding"
					detail={dns.forwarding?.found.join(', ')}
				/>
			</ul>
			{dns.errors?.length ? <p className="text-xs text-red-700">{dns.errors.join('; ')}</p> : null}
			{checkedAt ? (
				<p className="text-xs text-slate-500">
					Checked <LocalTime value={checkedAt} locale={locale} />
					{dns.pending ? ' · checking again…' : null}
				</p>
			) : null}
		</div>
	)
}

/** An international name in Unicode, its punycode (what DNS holds) on hover and focus. */
function DomainName({ row }: { row: DomainRow }) {
	if (row.display === row.name) return <>{row.name}</>
	return (
		<Tooltip content={row.name}>
			<span tabIndex={0} title={row.name} data-punycode={row.name}>
				{row.display}
			</span>
		</Tooltip>
	)
}

function RowActions({ row }: { row: DomainRow }) {
	// a refusal comes back to this page: the dialog starts closed again with the answer's toast
	const { key } = useLocation()
	return (
		<div className="flex items-center justify-end gap-4">
			{row.canMove ? <MoveToWorkspace type="domain" id={row.id} name={row.display} /> : null}
			<Form method="post">
				<input type="hidden" name="id" value={row.id} />
				<Button type="submit" name="intent" value="check-dns" variant="secondary">
					Check DNS<span className="sr-only"> of {row.display}</span>
				</Button>
			</Form>
			<ConfirmDialog
				key={key}
				trigger={
					<>
						Delete<span className="sr-only"> {row.display}</span>
					</>
				}
				title={`Delete ${row.display}?`}
				description="A domain with a live subscription or inboxes cannot be deleted."
				confirmLabel="Delete domain"
				fields={{ intent: 'delete', id: row.id }}
			/>
		</div>
	)
}

/**
 * The domains table (issue 34): DataTable v2 with sorting, column choice, density and bulk
 * actions; names and buttons never wrap, dates in one format, the user's.
 */
export function DomainsTable({
	rows,
	canChange,
	locale,
	sort,
	preferences,
	q,
	matching,
	page,
	formKey,
	workspaces,
	bulkResult,
}: {
	rows: DomainRow[]
	canChange: boolean
	locale: string
	sort: TableSort
	preferences: TablePreferencesView
	q: string
	matching: number
	page: { first: number; previous: string | null; next: string | null }
	formKey: string
	workspaces: { id: string; name: string }[]
	bulkResult?: SubmissionResult<string[]> | null
}) {
	const columns: RowColumn<DomainRow>[] = [
		{
			key: 'name',
			label: 'Domain',
			rowHeader: true,
			sortable: true,
			nowrap: true,
			cell: (d) => (
				<>
					<DomainName row={d} />
					{d.status !== 'active' ? (
						<span className="ml-2">
							<Badge tone="amber">{d.status}</Badge>
						</span>
					) : null}
				</>
			),
		},
		{
			key: 'grade',
			label: 'Health',
			sortable: true,
			cell: (d) => <HealthSummary row={d} locale={locale} />,
		},
		{
			key: 'workspace',
			label: 'Workspace',
			sortable: true,
			nowrap: true,
			cell: (d) => d.workspace ?? 'Unassigned',
		},
		{
			key: 'subscription',
			label: 'Subscription',
			sortable: true,
			nowrap: true,
			cell: (d) =>
				d.subscribedUntil ? (
					<>
						Until <LocalTime value={d.subscribedUntil} locale={locale} dateOnly />
					</>
				) : (
					'None'
				),
		},
		{
			key: 'forwarding',
			label: 'Forwarding',
			nowrap: true,
			cell: (d) => (d.forwardTo ? `${d.redirectCode} → ${d.forwardTo}` : '—'),
		},
		{
			key: 'added',
			label: 'Added',
			sortable: true,
			nowrap: true,
			cell: (d) => <LocalTime value={d.addedAt} locale={locale} dateOnly />,
		},
		...(canChange
			? [
					{
						key: 'actions',
						label: 'Actions',
						srOnlyLabel: true,
						hideable: false,
						nowrap: true,
						// always in view at 1280 px, however wide the other columns are
						sticky: true,
						align: 'right' as const,
						cell: (d: DomainRow) => <RowActions row={d} />,
					},
				]
			: []),
	]
	const actions = [
		{ value: 'check-dns', label: 'Check DNS' },
		{ value: 'cancel', label: 'Cancel subscription' },
		...workspaces.map((w) => ({ value: `move:${w.id}`, label: `Move to ${w.name}` })),
		{ value: 'delete', label: 'Delete' },
	]
	return (
		<>
			<TableFilter id="domains-q" label="Filter domains" q={q} sort={sort} />
			<DataTable
				label="Domains"
				testId="domains"
				columns={columns}
				rows={rows}
				rowKey={(d) => d.id}
				rowProps={(d) => ({ 'data-domain': d.name })}
				sort={sort}
				preferences={preferences}
				selection={
					canChange ? { formId: DOMAINS_BULK_FORM, rowLabel: (d) => d.display } : undefined
				}
				toolbar={
					canChange ? (
						<BulkToolbar
							formId={DOMAINS_BULK_FORM}
							formKey={formKey}
							actions={actions}
							matching={matching}
							filter={{ q }}
							lastResult={bulkResult}
							noun="domains"
						/>
					) : null
				}
			/>
			<PageLinks
				label="Domain pages"
				statusTestId="domains-page"
				first={page.first}
				count={rows.length}
				total={matching}
				previous={page.previous}
				next={page.next}
			/>
		</>
	)
}
