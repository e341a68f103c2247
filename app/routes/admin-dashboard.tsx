import { Form, Link } from 'react-router'
import type { Route } from './+types/admin-dashboard'
import { ActionForm, formatWhen } from '../components/admin/action-form.tsx'
import { Badge } from '../components/ui/choice.tsx'
import { buttonClasses } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { inputClasses } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import { assertStaff } from '../services/admin/access.server.ts'
import { runFormAction } from '../services/admin/form-action.server.ts'
import { getServerHealth, runChecksNow } from '../services/admin/health.server.ts'
import { RunChecksSchema, UserSearchSchema } from '../services/admin/schemas.ts'
import { searchUsers } from '../services/admin/users.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'
import { ScrollRegion } from '../components/ui/scroll-region.tsx'

export async function loader({ request, context }: Route.LoaderArgs) {
	const account = assertStaff(context.get(requestContext).account)
	const parsed = UserSearchSchema.safeParse({
		q: new URL(request.url).searchParams.get('q') ?? undefined,
	})
	const q = parsed.success ? (parsed.data.q ?? '') : ''
	const [users, health] = await Promise.all([
		searchUsers(account, q || undefined),
		getServerHealth(account),
	])
	return { q, users, health, canChange: account.platformRole === 'admin' }
}

export async function action({ request, context }: Route.ActionArgs) {
	const account = context.get(requestContext).account
	return runFormAction(await readFormData(request), RunChecksSchema, async () => {
		const results = await runChecksNow(account)
		const failed = results.filter((r) => !r.ok).map((r) => r.service)
		return redirectWithSuccess(
			'/admin-dashboard',
			failed.length ? `Checks done; failing: ${failed.join(', ')}` : 'Checks done; all ok',
		)
	})
}

export default function AdminDashboard({ loaderData, actionData }: Route.ComponentProps) {
	const { q, users, health, canChange } = loaderData
	return (
		<>
			<PageHeader
				title="Admin"
				description={canChange ? 'Platform admin' : 'Platform editor: you may look, not change.'}
			/>
			<div className="space-y-6">
				<Card>
					<h2 className="text-lg font-semibold">Users</h2>
					<Form method="get" className="mt-4 flex items-end gap-3" role="search">
						<div className="flex-1">
							<label htmlFor="user-search" className="block text-sm font-medium text-slate-800">
								Email contains
							</label>
							<input
								id="user-search"
								name="q"
								type="search"
								defaultValue={q}
								className={`mt-1 ${inputClasses}`}
							/>
						</div>
						<button type="submit" className={buttonClasses('secondary')}>
							Search
						</button>
					</Form>
					{users.length ? (
						<ScrollRegion className="mt-4" label="Users">
							<table className="w-full text-left text-sm">
								<thead className="text-slate-600">
									<tr>
										<th className="py-2">Email</th>
										<th>Role</th>
										<th>Credits</th>
										<th>Flags</th>
										<th>Signed up</th>
									</tr>
								</thead>
								<tbody className="divide-y divide-slate-100">
									{users.map((user) => (
										<tr key={user.id}>
											<td className="py-2">
												<Link
													to={`/admin-dashboard/users/${user.id}`}
													className="text-indigo-700 hover:underline"
												>
													{user.email}
												</Link>
											</td>
											<td>{user.role ?? '—'}</td>
											<td>{(user.balance ?? 0).toLocaleString('en')}</td>
											<td className="space-x-1">
												{user.is_ltd ? <Badge>LTD</Badge> : null}
												{user.primary_user_id ? <Badge>team member</Badge> : null}
												{user.banned_until && new Date(user.banned_until) > new Date() ? (
													<Badge>banned</Badge>
												) : null}
											</td>
											<td>{formatWhen(user.created_at)}</td>
										</tr>
									))}
								</tbody>
							</table>
						</ScrollRegion>
					) : (
						<p className="mt-4 text-sm text-slate-600">No users match.</p>
					)}
				</Card>
				<Card>
					<div className="flex flex-wrap items-start justify-between gap-4">
						<h2 className="text-lg font-semibold">Server health</h2>
						{canChange ? (
							<ActionForm
								id="run-checks"
								intent="run-checks"
								schema={RunChecksSchema}
								actionData={actionData}
								submit="Run checks now"
								pendingText="Checking…"
								variant="secondary"
							/>
						) : null}
					</div>
					<p className="mt-1 text-sm text-slate-600">
						The check-server job runs every five minutes. /healthz answers while the process lives;
						/readyz when the database and the queue are ready.
					</p>
					{health.latest.length ? (
						<ScrollRegion className="mt-4" label="Latest health checks">
							<table className="w-full text-left text-sm">
								<thead className="text-slate-600">
									<tr>
										<th className="py-2">Service</th>
										<th>Latest</th>
										<th>Latency</th>
										<th>Detail</th>
										<th>Checked</th>
										<th>Last 24 hours</th>
									</tr>
								</thead>
								<tbody className="divide-y divide-slate-100">
									{health.latest.map((row) => {
										const day = health.day.find((d) => d.service === row.service)
										return (
											<tr key={row.service}>
												<td className="py-2 font-medium">{row.service}</td>
												<td>{row.ok ? 'ok' : 'failing'}</td>
												<td>{row.latency_ms ?? '—'} ms</td>
												<td className="max-w-xs truncate" title={row.detail ?? ''}>
													{row.detail}
												</td>
												<td>{formatWhen(row.checked_at)}</td>
												<td>
													{day
														? `${day.checks - day.failures} of ${day.checks} ok${
																day.lastFailure
																	? `; last failure ${formatWhen(day.lastFailure.checked_at)}`
																	: ''
															}`
														: '—'}
												</td>
											</tr>
										)
									})}
								</tbody>
							</table>
						</ScrollRegion>
					) : (
						<p className="mt-4 text-sm text-slate-600">No checks in the last 24 hours yet.</p>
					)}
				</Card>
			</div>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Admin')
