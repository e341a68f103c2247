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
import { DataTable, type RowColumn } from '../components/ui/data-table.tsx'

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

type Loaded = Route.ComponentProps['loaderData']
type HealthDay = Loaded['health']['day']

const USER_COLUMNS: RowColumn<Loaded['users'][number]>[] = [
	{
		key: 'email',
		label: 'Email',
		cell: (user) => (
			<Link to={`/admin-dashboard/users/${user.id}`} className="text-indigo-700 hover:underline">
				{user.email}
			</Link>
		),
	},
	{ key: 'role', label: 'Role', cell: (user) => user.role ?? '—' },
	{
		key: 'credits',
		label: 'Credits',
		align: 'right',
		cell: (user) => (user.balance ?? 0).toLocaleString('en'),
	},
	{
		key: 'flags',
		label: 'Flags',
		className: 'space-x-1',
		cell: (user) => (
			<>
				{user.is_ltd ? <Badge>LTD</Badge> : null}
				{user.primary_user_id ? <Badge>team member</Badge> : null}
				{user.banned_until && new Date(user.banned_until) > new Date() ? (
					<Badge>banned</Badge>
				) : null}
			</>
		),
	},
	{
		key: 'signed-up',
		label: 'Signed up',
		nowrap: true,
		cell: (user) => formatWhen(user.created_at),
	},
]

function healthColumns(days: HealthDay): RowColumn<Loaded['health']['latest'][number]>[] {
	return [
		{ key: 'service', label: 'Service', className: 'font-medium', cell: (row) => row.service },
		{ key: 'latest', label: 'Latest', cell: (row) => (row.ok ? 'ok' : 'failing') },
		{
			key: 'latency',
			label: 'Latency',
			nowrap: true,
			cell: (row) => `${row.latency_ms ?? '—'} ms`,
		},
		{
			key: 'detail',
			label: 'Detail',
			className: 'max-w-xs truncate',
			cell: (row) => <span title={row.detail ?? ''}>{row.detail}</span>,
		},
		{ key: 'checked', label: 'Checked', nowrap: true, cell: (row) => formatWhen(row.checked_at) },
		{
			key: 'day',
			label: 'Last 24 hours',
			cell: (row) => {
				const day = days.find((d) => d.service === row.service)
				if (!day) return '—'
				const last = day.lastFailure
					? `; last failure ${formatWhen(day.lastFailure.checked_at)}`
					: ''
				return `${day.checks - day.failures} of ${day.checks} ok${last}`
			},
		},
	]
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
						<div className="mt-4">
							<DataTable
								label="Users"
								testId="admin-users"
								columns={USER_COLUMNS}
								rows={users}
								rowKey={(u) => u.id}
							/>
						</div>
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
						<div className="mt-4">
							<DataTable
								label="Latest health checks"
								testId="health-checks"
								columns={healthColumns(health.day)}
								rows={health.latest}
								rowKey={(r) => r.service}
							/>
						</div>
					) : (
						<p className="mt-4 text-sm text-slate-600">No checks in the last 24 hours yet.</p>
					)}
				</Card>
			</div>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Admin')
