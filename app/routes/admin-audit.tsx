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
import { ScrollRegion } from '../components/ui/scroll-region.tsx'

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
	const rows = await listAuditLog(account, filters)
	return { filters, rows }
}

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
					<ScrollRegion className="mt-6" label="Audit log">
						<table className="w-full text-left text-sm">
							<thead className="text-slate-600">
								<tr>
									<th className="py-2">When</th>
									<th>Who</th>
									<th>What</th>
									<th>Target</th>
									<th>Before</th>
									<th>After</th>
								</tr>
							</thead>
							<tbody className="divide-y divide-slate-100 align-top">
								{rows.map((r) => (
									<tr key={r.id}>
										<td className="py-2 whitespace-nowrap">{formatWhen(r.created_at)}</td>
										<td>{r.actor_email ?? 'system'}</td>
										<td className="font-mono">{r.action}</td>
										<td className="break-all">
											{r.target_type} {r.target_id}
										</td>
										<td className="max-w-xs text-xs">
											<JsonFields value={r.before ?? undefined} />
										</td>
										<td className="max-w-xs text-xs">
											<JsonFields value={r.after ?? undefined} />
										</td>
									</tr>
								))}
							</tbody>
						</table>
					</ScrollRegion>
				) : (
					<p className="mt-6 text-sm text-slate-600">No entries match.</p>
				)}
			</Card>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Admin: audit log')
