import { getInputProps } from '@conform-to/react'
import { Link } from 'react-router'
import type { Route } from './+types/admin-user'
import { ActionForm, formatWhen } from '../components/admin/action-form.tsx'
import { Badge } from '../components/ui/choice.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { ErrorList, Field } from '../components/ui/field.tsx'
import { Select } from '../components/ui/select.tsx'
import { requestContext } from '../context.server.ts'
import { assertStaff } from '../services/admin/access.server.ts'
import { runFormAction } from '../services/admin/form-action.server.ts'
import {
	BanSchema,
	CancelSubscriptionSchema,
	CreditsActionSchema,
	ExtendActionSchema,
	LtdActionSchema,
	PLATFORM_ROLE_CHOICES,
	RemoveTwoFactorSchema,
	RoleActionSchema,
	UnbanSchema,
	UserActionSchema,
} from '../services/admin/schemas.ts'
import {
	adjustCredits,
	cancelSubscriptionNow,
	extendSubscription,
	getUserOverview,
	removeTwoFactor,
	setBanned,
	setLtd,
	setPlatformRole,
} from '../services/admin/users.server.ts'
import { CREDIT_REASON_LABELS } from '../services/billing/credits.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'
import { DataTable } from '../components/ui/data-table.tsx'

export async function loader({ params, context }: Route.LoaderArgs) {
	const account = assertStaff(context.get(requestContext).account)
	const overview = await getUserOverview(account, params.userId)
	return {
		...overview,
		reasonLabels: CREDIT_REASON_LABELS,
		canChange: account.platformRole === 'admin',
		now: new Date(),
	}
}

export async function action({ request, params, context }: Route.ActionArgs) {
	const account = context.get(requestContext).account
	const id = params.userId
	const here = `/admin-dashboard/users/${id}`
	return runFormAction(await readFormData(request), UserActionSchema, async (value) => {
		switch (value.intent) {
			case 'credits': {
				const result = await adjustCredits(account, id, value)
				const verb = value.direction === 'grant' ? 'granted' : 'deducted'
				return redirectWithSuccess(
					here,
					`${value.amount.toLocaleString('en')} credits ${verb}; balance ${result.balance.toLocaleString('en')}`,
				)
			}
			case 'ltd':
				await setLtd(account, id, value.isLtd)
				return redirectWithSuccess(
					here,
					value.isLtd ? 'Lifetime deal set' : 'Lifetime deal cleared',
				)
			case 'role':
				await setPlatformRole(account, id, value.role)
				return redirectWithSuccess(here, `Platform role: ${value.role}`)
			case 'extend':
				await extendSubscription(account, id, { planId: value.plan, days: value.days })
				return redirectWithSuccess(here, `Subscription extended by ${value.days} days`)
			case 'cancel-subscription':
				await cancelSubscriptionNow(account, id)
				return redirectWithSuccess(here, 'Subscription cancelled')
			case 'ban':
				await setBanned(account, id, true)
				return redirectWithSuccess(here, 'Sign-in banned')
			case 'unban':
				await setBanned(account, id, false)
				return redirectWithSuccess(here, 'Sign-in allowed again')
			case 'remove-two-factor':
				await removeTwoFactor(account, id)
				return redirectWithSuccess(here, 'Two-factor authentication removed')
		}
	})
}

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
	return (
		<div>
			<dt className="text-sm text-slate-600">{label}</dt>
			<dd className="font-medium text-slate-900">{children}</dd>
		</div>
	)
}

export default function AdminUser({ loaderData, actionData }: Route.ComponentProps) {
	const { user, subscription, plan, plans, balance, ledger, team, workspaces, counts, canChange } =
		loaderData
	const banned = !!user.banned_until && new Date(user.banned_until) > new Date(loaderData.now)
	return (
		<>
			<p className="mb-2 text-sm">
				<Link to="/admin-dashboard" className="text-indigo-700 hover:underline">
					← Users
				</Link>
			</p>
			<PageHeader
				title={user.email ?? user.id}
				description={
					<span className="space-x-1">
						{user.is_ltd ? <Badge tone="green">LTD</Badge> : null}
						{user.role ? <Badge tone="indigo">platform {user.role}</Badge> : null}
						{banned ? <Badge tone="amber">banned</Badge> : null}
						{user.isTeamMember ? (
							<Link
								to={`/admin-dashboard/users/${user.accountId}`}
								className="text-indigo-700 hover:underline"
							>
								team member of the owner’s account
							</Link>
						) : null}
					</span>
				}
			/>
			<div className="space-y-6">
				<Card>
					<h2 className="text-lg font-semibold">Account</h2>
					<dl className="mt-4 grid grid-cols-2 gap-4 sm:grid-cols-4">
						<Fact label="Plan">{plan?.name ?? 'none'}</Fact>
						<Fact label="Subscription">
							{subscription
								? `${subscription.status}${subscription.cancel_at_period_end ? ', ends' : ''} until ${formatWhen(subscription.expire_date)} (${subscription.provider})`
								: 'none'}
						</Fact>
						<Fact label="Credits">{balance.toLocaleString('en')}</Fact>
						<Fact label="Lifetime deal">{user.is_ltd ? 'yes' : 'no'}</Fact>
						<Fact label="Lists">{counts.lists}</Fact>
						<Fact label="Domains">{counts.domains}</Fact>
						<Fact label="Workspaces">{workspaces.map((w) => w.name).join(', ') || 'none'}</Fact>
						<Fact label="Signed up">{formatWhen(user.created_at)}</Fact>
						<Fact label="Last sign-in">{formatWhen(user.last_sign_in_at)}</Fact>
						<Fact label="Banned until">
							{banned ? formatWhen(user.banned_until) : 'not banned'}
						</Fact>
					</dl>
					<h3 className="mt-6 font-semibold">Team</h3>
					{team.length ? (
						<ul className="mt-2 text-sm">
							{team.map((m) => (
								<li key={m.id}>
									{m.email} ({m.role}, {m.status})
								</li>
							))}
						</ul>
					) : (
						<p className="mt-2 text-sm text-slate-600">No team members.</p>
					)}
				</Card>

				{canChange ? (
					<div className="grid gap-6 md:grid-cols-2">
						<Card>
							<h2 className="text-lg font-semibold">Credits</h2>
							<ActionForm
								id="credits"
								intent="credits"
								schema={CreditsActionSchema}
								actionData={actionData}
								submit="Apply"
								className="mt-4"
							>
								{(fields) => (
									<>
										<fieldset>
											<legend className="text-sm font-medium text-slate-800">
												Grant or deduct
											</legend>
											<div className="mt-1 flex gap-4 text-sm">
												<label>
													<input type="radio" name="direction" value="grant" defaultChecked /> Grant
												</label>
												<label>
													<input type="radio" name="direction" value="deduct" /> Deduct
												</label>
											</div>
											<ErrorList errors={fields.direction.errors} />
										</fieldset>
										<Field
											label="Amount"
											errors={fields.amount.errors}
											inputProps={{ ...getInputProps(fields.amount, { type: 'number' }) }}
										/>
										<Field
											label="Reason"
											hint="The account's owner reads it in their credit history."
											errors={fields.note.errors}
											inputProps={{ ...getInputProps(fields.note, { type: 'text' }) }}
										/>
									</>
								)}
							</ActionForm>
						</Card>
						<Card>
							<h2 className="text-lg font-semibold">Subscription</h2>
							<ActionForm
								id="extend"
								intent="extend"
								schema={ExtendActionSchema}
								actionData={actionData}
								submit={subscription ? 'Extend' : 'Grant a subscription'}
								className="mt-4"
							>
								{(fields) => (
									<>
										<Select
											id={fields.plan.id}
											name={fields.plan.name}
											label="Plan (for an account without one)"
											defaultValue={String(subscription?.active_plan ?? 1)}
											errors={fields.plan.errors}
											options={plans.map((p) => ({ value: String(p.id), label: p.name }))}
										/>
										<Field
											label="Days"
											errors={fields.days.errors}
											inputProps={{ ...getInputProps(fields.days, { type: 'number' }) }}
										/>
									</>
								)}
							</ActionForm>
							{subscription ? (
								<ActionForm
									id="cancel-subscription"
									intent="cancel-subscription"
									schema={CancelSubscriptionSchema}
									actionData={actionData}
									submit="Cancel the subscription now"
									variant="danger"
									className="mt-4"
								/>
							) : null}
						</Card>
						<Card>
							<h2 className="text-lg font-semibold">Lifetime deal and role</h2>
							<ActionForm
								id="ltd"
								intent="ltd"
								schema={LtdActionSchema}
								actionData={actionData}
								hidden={{ isLtd: user.is_ltd ? 'false' : 'true' }}
								submit={user.is_ltd ? 'Clear lifetime deal' : 'Set lifetime deal'}
								variant="secondary"
								className="mt-4"
							/>
							<ActionForm
								id="role"
								intent="role"
								schema={RoleActionSchema}
								actionData={actionData}
								submit="Set role"
								variant="secondary"
								className="mt-4"
							>
								{(fields) => (
									<Select
										id={fields.role.id}
										name={fields.role.name}
										label="Platform role"
										defaultValue={user.role ?? 'none'}
										errors={fields.role.errors}
										options={PLATFORM_ROLE_CHOICES.map((r) => ({ value: r, label: r }))}
									/>
								)}
							</ActionForm>
						</Card>
						<Card>
							<h2 className="text-lg font-semibold">Sign-in</h2>
							{banned ? (
								<ActionForm
									id="unban"
									intent="unban"
									schema={UnbanSchema}
									actionData={actionData}
									submit="Unban sign-in"
									className="mt-4"
								/>
							) : (
								<ActionForm
									id="ban"
									intent="ban"
									schema={BanSchema}
									actionData={actionData}
									submit="Ban sign-in"
									variant="danger"
									className="mt-4"
								/>
							)}
							<h3 className="mt-6 font-semibold">Two-factor authentication</h3>
							{Number(user.two_factor_factors) > 0 ? (
								<>
									<p className="mt-1 text-sm text-slate-700">
										On. If they lost their authenticator app, remove it: they then sign in with
										their password alone.
									</p>
									<ActionForm
										id="remove-two-factor"
										intent="remove-two-factor"
										schema={RemoveTwoFactorSchema}
										actionData={actionData}
										submit="Remove two-factor authentication"
										variant="danger"
										className="mt-2"
									/>
								</>
							) : (
								<p className="mt-1 text-sm text-slate-700">Off.</p>
							)}
						</Card>
					</div>
				) : null}

				<Card>
					<h2 className="text-lg font-semibold">Credit ledger</h2>
					{ledger.length ? (
						<div className="mt-4">
							<DataTable
								label="Credit ledger"
								testId="admin-ledger"
								rows={ledger}
								rowKey={(e) => String(e.id)}
								columns={[
									{
										key: 'when',
										label: 'When',
										nowrap: true,
										cell: (e) => formatWhen(e.created_at),
									},
									{
										key: 'change',
										label: 'Change',
										align: 'right',
										cell: (e) => (e.delta > 0 ? `+${e.delta}` : e.delta),
									},
									{
										key: 'balance',
										label: 'Balance',
										align: 'right',
										cell: (e) => e.balance_after,
									},
									{
										key: 'reason',
										label: 'Reason',
										cell: (e) => (
											<>
												{loaderData.reasonLabels[e.reason] ?? e.reason}
												{e.note ? <span className="text-slate-600"> · {e.note}</span> : null}
											</>
										),
									},
								]}
							/>
						</div>
					) : (
						<p className="mt-2 text-sm text-slate-600">No credit changes yet.</p>
					)}
				</Card>
			</div>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Admin: user')
