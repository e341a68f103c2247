import { getInputProps } from '@conform-to/react'
import { CalendarClock, Coins, Tags } from 'lucide-react'
import type { Route } from './+types/admin-plans'
import { ActionForm } from '../components/admin/action-form.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { Field } from '../components/ui/field.tsx'
import { Tabs } from '../components/ui/tabs.tsx'
import { requestContext } from '../context.server.ts'
import { assertStaff } from '../services/admin/access.server.ts'
import { runFormAction } from '../services/admin/form-action.server.ts'
import { updateCreditPackPrice, updatePricePlan } from '../services/admin/plans.server.ts'
import {
	PackUpdateSchema,
	PlanUpdateSchema,
	PricingActionSchema,
} from '../services/admin/schemas.ts'
import { listOfferedCreditPacks } from '../services/billing/credit-pack-prices.server.ts'
import { listPricePlans } from '../services/billing/plans.server.ts'
import { formatCents } from '../utils/money.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

export async function loader({ context }: Route.LoaderArgs) {
	const account = assertStaff(context.get(requestContext).account)
	return {
		plans: await listPricePlans(),
		packs: await listOfferedCreditPacks(),
		canChange: account.platformRole === 'admin',
	}
}

export async function action({ request, context }: Route.ActionArgs) {
	const account = context.get(requestContext).account
	return runFormAction(await readFormData(request), PricingActionSchema, async (value) => {
		if (value.intent === 'pack') {
			const pack = await updateCreditPackPrice(account, value)
			return redirectWithSuccess(
				'/admin-dashboard/plans',
				`${pack.credits.toLocaleString('en')}-credit pack saved`,
			)
		}
		const plan = await updatePricePlan(account, value)
		return redirectWithSuccess('/admin-dashboard/plans', `${plan.name} saved`)
	})
}

export default function AdminPlans({ loaderData, actionData }: Route.ComponentProps) {
	const { plans, packs, canChange } = loaderData
	return (
		<>
			<PageHeader
				title="Price plans and credit packs"
				icon={<Tags />}
				description="New prices apply to new checkouts only; running subscriptions keep theirs until they renew through a new checkout."
			/>
			<Tabs
				label="Prices"
				// a failed pack form shows its errors in its own tab
				defaultValue={actionData?.intent === 'pack' ? 'packs' : 'plans'}
				tabs={[
					{
						value: 'plans',
						label: 'Plans',
						icon: <CalendarClock aria-hidden className="size-4" />,
						content: (
							<div className="grid gap-6 md:grid-cols-2">
								{plans.map((plan) => (
									<Card key={plan.id}>
										<h2 className="text-lg font-semibold">
											{plan.id}. {plan.name}
										</h2>
										<p className="text-sm text-slate-600">
											{formatCents(plan.price_cents)} a {plan.interval},{' '}
											{plan.monthly_credits.toLocaleString('en')} credits a month ({plan.tier})
											{plan.stripe_price_id ? `; Stripe price ${plan.stripe_price_id}` : ''}
										</p>
										{canChange ? (
											<ActionForm
												id={`plan-${plan.id}`}
												intent="plan"
												schema={PlanUpdateSchema}
												actionData={actionData}
												hidden={{ planId: String(plan.id) }}
												submit="Save"
												className="mt-4"
											>
												{(fields) => (
													<div className="grid grid-cols-2 gap-3">
														<Field
															label="Price (cents)"
															errors={fields.priceCents.errors}
															inputProps={{
																...getInputProps(fields.priceCents, { type: 'number' }),
																id: `plan-${plan.id}-price`,
																defaultValue: String(plan.price_cents),
															}}
														/>
														<Field
															label="Monthly credits"
															errors={fields.monthlyCredits.errors}
															inputProps={{
																...getInputProps(fields.monthlyCredits, { type: 'number' }),
																id: `plan-${plan.id}-credits`,
																defaultValue: String(plan.monthly_credits),
															}}
														/>
													</div>
												)}
											</ActionForm>
										) : null}
									</Card>
								))}
							</div>
						),
					},
					{
						value: 'packs',
						label: 'Credit packs',
						icon: <Coins aria-hidden className="size-4" />,
						content: (
							<Card>
								<h2 className="text-lg font-semibold">Credit packs</h2>
								<p className="mt-1 text-sm text-slate-600">
									The pack sizes come from CREDIT_PACKS; a price set here replaces its default for
									new checkouts.
								</p>
								<div className="mt-4 grid gap-4 md:grid-cols-3">
									{packs.map((pack) => (
										<div key={pack.credits}>
											<h3 className="font-medium">
												{pack.credits.toLocaleString('en')} credits: {formatCents(pack.priceCents)}
											</h3>
											<p className="text-sm text-slate-600">
												Default {formatCents(pack.defaultPriceCents)}
											</p>
											{canChange ? (
												<ActionForm
													id={`pack-${pack.credits}`}
													intent="pack"
													schema={PackUpdateSchema}
													actionData={actionData}
													hidden={{ credits: String(pack.credits) }}
													submit="Save"
													variant="secondary"
													className="mt-2"
												>
													{(fields) => (
														<Field
															label="Price (cents)"
															errors={fields.priceCents.errors}
															inputProps={{
																...getInputProps(fields.priceCents, { type: 'number' }),
																id: `pack-${pack.credits}-price`,
																defaultValue: String(pack.priceCents),
															}}
														/>
													)}
												</ActionForm>
											) : null}
										</div>
									))}
								</div>
							</Card>
						),
					},
				]}
			/>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Admin: plans')
