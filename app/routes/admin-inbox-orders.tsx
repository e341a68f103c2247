import { getInputProps } from '@conform-to/react'
import { Link } from 'react-router'
import type { Route } from './+types/admin-inbox-orders'
import { ActionForm, formatWhen } from '../components/admin/action-form.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { DataTable } from '../components/ui/data-table.tsx'
import { ErrorList, Field, inputClasses } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import { assertStaff } from '../services/admin/access.server.ts'
import { runFormAction } from '../services/admin/form-action.server.ts'
import {
	failOrder,
	fulfilOrderAndNotify,
	listOrderQueue,
	ORDER_STATUS_LABELS,
	startOrder,
} from '../services/admin/inbox-orders.server.ts'
import { OrderActionSchema } from '../services/admin/schemas.ts'
import {
	CREDENTIAL_COLUMNS,
	RefundNotConfirmedError,
} from '../services/inboxes/fulfilment.server.ts'
import { formatCents } from '../utils/money.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithError, redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

const HERE = '/admin-dashboard/inbox-orders'

export async function loader({ request, context }: Route.LoaderArgs) {
	const account = assertStaff(context.get(requestContext).account)
	const param = new URL(request.url).searchParams.get('status')
	const status = ORDER_STATUS_LABELS.findIndex((s) => s === param)
	return {
		orders: await listOrderQueue(account, status >= 0 ? status : null),
		status: status >= 0 ? ORDER_STATUS_LABELS[status]! : null,
		labels: ORDER_STATUS_LABELS,
		columns: CREDENTIAL_COLUMNS,
		canChange: account.platformRole === 'admin',
	}
}

export async function action({ request, context }: Route.ActionArgs) {
	const account = context.get(requestContext).account
	return runFormAction(await readFormData(request), OrderActionSchema, async (value) => {
		if (value.intent === 'start-order') {
			await startOrder(account, value.orderId)
			return redirectWithSuccess(HERE, 'Order marked processing')
		}
		if (value.intent === 'fulfil-order') {
			const result = await fulfilOrderAndNotify(account, value.orderId, value.csv)
			if (!result.complete) {
				return redirectWithSuccess(
					HERE,
					`${result.inboxes} inboxes created: ${result.delivered} of ${result.ordered} delivered. The order stays open for the rest; billing starts with the last one.`,
				)
			}
			return redirectWithSuccess(HERE, `Order fulfilled: ${result.inboxes} inboxes created`)
		}
		try {
			await failOrder(account, value.orderId, value.reason)
		} catch (error) {
			// the order did fail: show it among the failed ones, with its Retry refund button
			if (error instanceof RefundNotConfirmedError) {
				return redirectWithError(`${HERE}?status=fail`, error.message)
			}
			throw error
		}
		return redirectWithSuccess(HERE, 'Order failed and refunded')
	})
}

export default function AdminInboxOrders({ loaderData, actionData }: Route.ComponentProps) {
	const { orders, status, labels, columns, canChange } = loaderData
	return (
		<>
			<PageHeader title="Inbox orders" description="Open orders first, oldest first." />
			<nav aria-label="Order status" className="mb-4 flex flex-wrap gap-3 text-sm">
				<Link
					to={HERE}
					className={status ? 'text-indigo-700' : 'font-semibold'}
					aria-current={status ? undefined : 'page'}
				>
					All
				</Link>
				{labels.map((label) => (
					<Link
						key={label}
						to={`${HERE}?status=${label}`}
						className={status === label ? 'font-semibold' : 'text-indigo-700'}
						aria-current={status === label ? 'page' : undefined}
					>
						{label}
					</Link>
				))}
			</nav>
			{orders.length ? (
				// the orders at a glance; each row opens its card below, where its forms are
				<div className="mb-6">
					<DataTable
						label="Inbox orders"
						testId="admin-orders"
						rows={orders}
						rowKey={(order) => order.id}
						columns={[
							{ key: 'owner', label: 'Owner', rowHeader: true, cell: (o) => o.owner_email },
							{
								key: 'order',
								label: 'Order',
								nowrap: true,
								cell: (o) => `${o.inboxes_per_domain} ${o.provider} × ${o.domains.length}`,
							},
							{ key: 'status', label: 'Status', cell: (o) => labels[o.status] ?? o.status },
							{
								key: 'delivered',
								label: 'Delivered',
								align: 'right',
								cell: (o) => `${o.delivered} of ${o.ordered}`,
							},
							{
								key: 'total',
								label: 'Total',
								align: 'right',
								cell: (o) => formatCents(o.total_cents),
							},
							{
								key: 'placed',
								label: 'Placed',
								nowrap: true,
								cell: (o) => formatWhen(o.created_at),
							},
							{
								key: 'open',
								label: 'Open',
								srOnlyLabel: true,
								hideable: false,
								sticky: true,
								nowrap: true,
								align: 'right',
								cell: (o) => (
									<a
										href={`#order-${o.id}`}
										className="font-medium text-indigo-700 hover:underline"
									>
										Details<span className="sr-only"> of the order of {o.owner_email}</span>
									</a>
								),
							},
						]}
					/>
				</div>
			) : (
				<p className="text-sm text-slate-600">No orders.</p>
			)}
			<div className="space-y-4">
				{orders.map((order) => (
					<Card key={order.id} id={`order-${order.id}`}>
						<h2 className="font-semibold">
							{order.owner_email}: {order.inboxes_per_domain} {order.provider} inboxes per domain (
							{labels[order.status] ?? order.status})
						</h2>
						<p className="text-sm text-slate-600">
							Order {order.id}; {formatCents(order.total_cents)}; placed{' '}
							{formatWhen(order.created_at)}
							{order.fulfilled_at ? `; fulfilled ${formatWhen(order.fulfilled_at)}` : ''}
							{order.refunded_at ? `; refunded ${formatWhen(order.refunded_at)}` : ''}
						</p>
						<p className="text-sm text-slate-600">Domains: {order.domains.join(', ')}</p>
						<p className="text-sm text-slate-600" data-testid="delivered">
							{order.delivered} of {order.ordered} inboxes delivered
							{order.status < 2 && order.delivered > 0
								? `; ${order.ordered - order.delivered} still to deliver`
								: ''}
						</p>
						{order.planned.length ? (
							<div className="mt-2 text-sm" data-testid="planned-inboxes">
								<p className="font-medium text-slate-800">
									Planned inboxes{order.status < 2 ? ' to create' : ''}:
								</p>
								<ul className="mt-1 font-mono text-xs text-slate-700">
									{order.planned.map((inbox) => (
										<li key={inbox.address}>
											{inbox.address} ({inbox.firstName} {inbox.lastName})
										</li>
									))}
								</ul>
							</div>
						) : null}
						{order.error ? <p className="text-sm text-red-700">Reason: {order.error}</p> : null}
						{canChange && order.status === 3 && !order.refunded_at ? (
							// failed, but the payment provider did not confirm the refund: it can be retried
							<div className="mt-4 space-y-2">
								<p className="text-sm text-amber-800">Refund pending: it did not go through yet.</p>
								<ActionForm
									id={`refund-${order.id}`}
									intent="fail-order"
									schema={OrderActionSchema.options[2]}
									actionData={actionData}
									hidden={{ orderId: order.id, reason: 'Retry the refund' }}
									submit="Retry refund"
									variant="danger"
								/>
							</div>
						) : null}
						{canChange && order.status < 2 ? (
							<div className="mt-4 grid gap-4 md:grid-cols-2">
								<div className="space-y-4">
									{order.status === 0 ? (
										<ActionForm
											id={`start-${order.id}`}
											intent="start-order"
											schema={OrderActionSchema.options[0]}
											actionData={actionData}
											hidden={{ orderId: order.id }}
											submit="Mark processing"
											variant="secondary"
										/>
									) : null}
									<ActionForm
										id={`fail-${order.id}`}
										intent="fail-order"
										schema={OrderActionSchema.options[2]}
										actionData={actionData}
										hidden={{ orderId: order.id }}
										submit="Fail and refund"
										variant="danger"
									>
										{(fields) => (
											<Field
												label="Why it failed"
												errors={fields.reason.errors}
												inputProps={{
													...getInputProps(fields.reason, { type: 'text' }),
													id: `reason-${order.id}`,
												}}
											/>
										)}
									</ActionForm>
								</div>
								<ActionForm
									id={`fulfil-${order.id}`}
									intent="fulfil-order"
									schema={OrderActionSchema.options[1]}
									actionData={actionData}
									hidden={{ orderId: order.id }}
									submit="Fulfil"
								>
									{(fields) => (
										<div>
											<label
												htmlFor={`csv-${order.id}`}
												className="block text-sm font-medium text-slate-800"
											>
												Credentials CSV
											</label>
											<p className="text-sm text-slate-600">Columns: {columns.join(', ')}</p>
											<textarea
												id={`csv-${order.id}`}
												name={fields.csv.name}
												rows={6}
												defaultValue={fields.csv.initialValue ?? ''}
												aria-invalid={fields.csv.errors ? true : undefined}
												className={`mt-1 font-mono ${inputClasses}`}
											/>
											<ErrorList errors={fields.csv.errors} />
										</div>
									)}
								</ActionForm>
							</div>
						) : null}
					</Card>
				))}
			</div>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Admin: inbox orders')
