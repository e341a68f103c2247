import { Form } from 'react-router'
import type { Route } from './+types/admin-audit'
import { formatWhen } from '../components/admin/action-form.tsx'
import { buttonClasses } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { inputClasses } from '../components/ui/field.tsx'
import { JsonFields } from '../components/ui/json-fields.tsx'
import { requestContext } from '../context.server.ts'
import { assertStaff } from '../services/admin/access.server.ts'
import { listAuditLog } from '../services/admin/audit.server.ts'
import { AuditFilterSchema } from '../services/admin/schemas.ts'
import { pageTitle } from '../utils/meta.ts'
import { DataTable, type RowColumn } from '../components/ui/data-table.tsx'
import { tablePreferences } from '../services/tables/preferences.server.ts'

const FILTERS = [
	{ name: 'action', label: 'Action starts with or contains', hint: 'admin., billing.' },
	{ name: 'actor', label: 'Actor email contains', hint: 'or “system”' },
	{ name: 'target', label: 'Target id', hint: '' },
] as const

export async function loader({ request, context }: Route.LoaderArgs) {
	const account = assertStaff(context.get(requestContext).account)
	const params = new URL(request.url).searchParams
	const parsed = AuditFilterSchema.safeParse({
		action: params.get('action') || undefined,
		actor: params.get('actor') || undefined,
		target: params.get('target') || undefined,
	})
	const filters = parsed.success ? parsed.data : {}
	const [rows, preferences] = await Promise.all([
		listAuditLog(account, filters),
		tablePreferences(account.user.id, 'audit'),
	])
	return { filters, rows, preferences: { table: 'audit', ...preferences } }
}

type AuditRow = Awaited<ReturnType<typeof listAuditLog>>[number]

// before and after as names and values (decision 0084), never raw JSON
const COLUMNS: RowColumn<AuditRow>[] = [
	{ key: 'when', label: 'When', nowrap: true, cell: (r) => formatWhen(r.created_at) },
	{ key: 'who', label: 'Who', cell: (r) => r.actor_email ?? 'system' },
	{ key: 'what', label: 'What', className: 'font-mono', cell: (r) => r.action },
	{
		key: 'target',
		label: 'Target',
		className: 'break-all',
		cell: (r) => `${r.target_type} ${r.target_id ?? ''}`,
	},
	{
		key: 'before',
		label: 'Before',
		className: 'max-w-xs align-top text-xs',
		cell: (r) => <JsonFields value={r.before ?? undefined} />,
	},
	{
		key: 'after',
		label: 'After',
		className: 'max-w-xs align-top text-xs',
		cell: (r) => <JsonFields value={r.after ?? undefined} />,
	},
]

export default function AdminAudit({ loaderData }: Route.ComponentProps) {
	const { filters, rows } = loaderData
	return (
		<>
			<PageHeader
				title="Audit log"
				description="Every admin action and billing change: who, what, before, after, when."
			/>
			<Card>
				<Form method="get" className="grid items-end gap-3 sm:grid-cols-4">
					{FILTERS.map((f) => (
						<div key={f.name}>
							<label
								htmlFor={`audit-${f.name}`}
								className="block text-sm font-medium text-slate-800"
							>
								{f.label}
							</label>
							<input
								id={`audit-${f.name}`}
								name={f.name}
								type="search"
								placeholder={f.hint}
								defaultValue={filters[f.name] ?? ''}
								className={`mt-1 ${inputClasses}`}
							/>
						</div>
					))}
					<button type="submit" className={buttonClasses('secondary')}>
						Filter
					</button>
				</Form>
				{rows.length ? (
					<div className="mt-6">
						<DataTable
							label="Audit log"
							testId="audit-log"
							columns={COLUMNS}
							rows={rows}
							rowKey={(r) => r.id}
							preferences={loaderData.preferences}
						/>
					</div>
				) : (
					<p className="mt-6 text-sm text-slate-600">No entries match.</p>
				)}
			</Card>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Admin: audit log')
