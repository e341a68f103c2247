import { ChevronDown, Download, FileDown, Inbox, MailPlus } from 'lucide-react'
import { data, Form, Link } from 'react-router'
import { InboxesTable } from '../components/inboxes/inboxes-table.tsx'
import { OrdersTable, type OrderRow } from '../components/inboxes/orders-table.tsx'
import { BulkProgress } from '../components/ui/bulk-progress.tsx'
import type { Route } from './+types/inboxes'
import { Button, buttonClasses } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { EmptyState } from '../components/ui/empty-state.tsx'
import { Menu } from '../components/ui/menu.tsx'
import { Select } from '../components/ui/select.tsx'
import { requestContext, type AccountContext } from '../context.server.ts'
import { findBulkAction, startBulkAction } from '../services/bulk/bulk-actions.server.ts'
import { bulkSelection } from '../services/bulk/schemas.ts'
import { inboxOrderBulk } from '../services/inboxes/bulk.server.ts'
import { cancelInboxOrder } from '../services/inboxes/cancel-order.server.ts'
import { InboxOrderBulkSchema } from '../services/inboxes/schemas.ts'
import { newFormKey, oncePerSubmission } from '../services/idempotency/form-submissions.server.ts'
import { tablePreferences } from '../services/tables/preferences.server.ts'
import { parseWithZod } from '../utils/form-bounds.ts'
import { domainAccount } from '../services/domains/access.server.ts'
import { listDomains } from '../services/domains/domains.server.ts'
import { DomainRowActionSchema } from '../services/domains/schemas.ts'
import {
	exportShowsCredentials,
	listInboxes,
	setInboxCancel,
} from '../services/inboxes/inboxes.server.ts'
import { BILLING_STARTS_AT_DELIVERY, listInboxOrders } from '../services/inboxes/orders.server.ts'
import { paymentProvider } from '../services/billing/payments.server.ts'
import { canChangeDomains } from '../services/workspaces/access.server.ts'
import { formErrorReply, redirectOnFormError } from '../utils/form-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { formatCents, formatDate } from '../utils/money.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

const INBOX_STATUS_OPTIONS = [
	{ value: '', label: 'Any status' },
	{ value: 'active', label: 'Active' },
	{ value: 'cancelling', label: 'Cancelled at period end' },
	{ value: 'cancelled', label: 'Cancelled' },
]

const ORDER_STATUS = ['waiting for setup', 'being set up', 'delivered', 'failed'] as const

export async function loader({ request, context }: Route.LoaderArgs) {
	const acting = domainAccount(context.get(requestContext).account, 'view')
	const params = new URL(request.url).searchParams
	const filters = {
		domainId: params.get('domain') || null,
		workspaceId: params.get('workspace') || null,
		status: params.get('status') || null,
	}
	const bulkId = params.get('bulk')
	const [inboxes, domains, orders, preferences, bulk] = await Promise.all([
		listInboxes(acting, filters),
		listDomains(acting),
		listInboxOrders(acting),
		tablePreferences(acting.user.id, 'inbox-orders'),
		bulkId ? findBulkAction(acting, bulkId) : Promise.resolve(null),
	])
	const withoutBulk = new URLSearchParams(params)
	withoutBulk.delete('bulk')
	return {
		canChange: canChangeDomains(acting),
		ordersTable: { table: 'inbox-orders', ...preferences },
		formKey: newFormKey(),
		bulk: bulk
			? { ...bulk, label: inboxOrderBulk.actions[bulk.action]?.label ?? bulk.action }
			: null,
		closeBulk: `/inboxes${withoutBulk.size ? `?${withoutBulk}` : ''}`,
		withPasswords: exportShowsCredentials(acting),
		testMode: paymentProvider() === 'test',
		billingStarts: BILLING_STARTS_AT_DELIVERY,
		filters,
		exportQuery: params.toString(),
		domains: domains.map((d) => ({ id: d.id, name: d.name })),
		workspaces: acting.workspaces,
		pendingOrders: orders
			.filter((o) => o.status < 2)
			.map((o) => ({
				id: o.id,
				status: o.status,
				total: formatCents(o.total_cents),
				date: formatDate(o.created_at),
				count: o.inboxes_per_domain * o.domain_ids.length,
				planned: o.planned,
			})),
		// every order, so each can be moved to another workspace with its inboxes
		orders: orders.map((o): OrderRow => ({
			id: o.id,
			name: `${o.provider === 'google' ? 'Google' : 'Microsoft'} inboxes (${o.inboxes_per_domain * Math.max(o.domain_ids.length, 1)}), ordered ${formatDate(o.created_at)}`,
			status: ORDER_STATUS[o.status] ?? 'unknown',
			total: formatCents(o.total_cents),
			workspace: acting.workspaces.find((w) => w.id === o.workspace_id)?.name ?? null,
			canMove: acting.workspaces.some((w) => w.id !== o.workspace_id),
			cancellable: o.status === 0,
		})),
		inboxes: inboxes.map((i) => ({
			id: i.id,
			address: i.address,
			name: [i.first_name, i.last_name].filter(Boolean).join(' '),
			provider: i.provider,
			domain: i.domain,
			workspace: i.workspace,
			status: i.status === 'active' && i.cancel_at_period_end ? 'cancelling' : i.status,
			period:
				i.status === 'active'
					? i.period_end
						? `${i.cancel_at_period_end ? 'Ends' : 'Renews'} ${formatDate(i.period_end)}`
						: null
					: i.ended_at
						? `Ended ${formatDate(i.ended_at)}`
						: null,
		})),
	}
}

export async function action({ request, context }: Route.ActionArgs) {
	const { account } = context.get(requestContext)
	const formData = await readFormData(request)
	if (formData.get('intent') === 'bulk') return bulkCancel(account, formData)
	if (formData.get('intent') === 'cancel-order') {
		try {
			await cancelInboxOrder(account, String(formData.get('id') ?? ''))
			return redirectWithSuccess('/inboxes', 'Order cancelled and refunded')
		} catch (error) {
			return redirectOnFormError(error, '/inboxes')
		}
	}
	const parsed = DomainRowActionSchema.safeParse(Object.fromEntries(formData))
	if (!parsed.success || !['cancel', 'resume'].includes(parsed.data.intent)) {
		throw data('Unknown action', { status: 400 })
	}
	try {
		const cancel = parsed.data.intent === 'cancel'
		const inbox = await setInboxCancel(account, parsed.data.id ?? '', cancel)
		return redirectWithSuccess(
			'/inboxes',
			cancel
				? `${inbox.address} ends on ${formatDate(inbox.period_end) ?? 'its period end'}`
				: `${inbox.address} renews as usual`,
		)
	} catch (error) {
		return redirectOnFormError(error, '/inboxes')
	}
}

/** The orders' bulk cancel: one job per submission (a double submit starts one), its progress here. */
async function bulkCancel(account: AccountContext | null, formData: FormData) {
	const acting = domainAccount(account, 'change')
	const submission = parseWithZod(formData, { schema: InboxOrderBulkSchema })
	if (submission.status !== 'success') return data({ result: submission.reply() }, { status: 400 })
	try {
		const { id, total } = await oncePerSubmission(
			{ accountId: acting.accountId, form: 'inbox-orders-bulk', formData },
			(trx) =>
				startBulkAction(
					acting,
					inboxOrderBulk,
					{ action: submission.value.action, selection: bulkSelection(submission.value) },
					trx,
				),
		)
		return redirectWithSuccess(
			`/inboxes?bulk=${id}`,
			`Cancelling ${total} order${total === 1 ? '' : 's'}`,
		)
	} catch (error) {
		return formErrorReply(error, submission)
	}
}

export default function Inboxes({ loaderData, actionData }: Route.ComponentProps) {
	const {
		inboxes,
		domains,
		workspaces,
		filters,
		canChange,
		withPasswords,
		pendingOrders,
		testMode,
		billingStarts,
		orders,
	} = loaderData
	return (
		<>
			<PageHeader
				title="Inboxes Management"
				icon={<Inbox />}
				description="Your sending inboxes by domain, workspace and status. Each inbox is billed monthly until you cancel it; a cancelled inbox works until the end of its paid month."
				actions={
					<div className="flex gap-2">
						<Menu
							label="Export inboxes"
							trigger={
								<>
									<Download aria-hidden className="size-4" />
									Export
									<ChevronDown aria-hidden className="size-4" />
								</>
							}
							triggerClassName={buttonClasses('secondary')}
							testId="export-menu"
							items={[
								{
									label: loaderData.exportQuery ? 'Export CSV (this filter)' : 'Export CSV',
									icon: <FileDown aria-hidden className="size-4" />,
									to: `/inboxes/export${loaderData.exportQuery ? `?${loaderData.exportQuery}` : ''}`,
									download: true,
								},
								...(loaderData.exportQuery
									? [
											{
												label: 'Export all inboxes',
												icon: <FileDown aria-hidden className="size-4" />,
												to: '/inboxes/export',
												download: true,
											},
										]
									: []),
							]}
						/>
						{canChange ? (
							<Link to="/ordering-inboxes" className={buttonClasses()}>
								<MailPlus aria-hidden className="size-4" />
								Order inboxes
							</Link>
						) : null}
					</div>
				}
			/>
			<p className="mb-4 text-sm text-slate-600">
				The export is the sender-import CSV outreach platforms take (email, names, password, SMTP
				and IMAP).{' '}
				{withPasswords
					? 'It includes passwords: keep it safe.'
					: 'Passwords are only in the account owner’s export.'}
			</p>
			{testMode ? (
				<p className="mb-4 text-sm text-slate-600" data-testid="test-mode-renewal">
					TEST MODE: monthly renewals are recorded on the renewal date without charging anyone.
				</p>
			) : null}
			{pendingOrders.length ? (
				<Card className="mb-4">
					<p className="text-sm text-slate-700" data-testid="pending-orders">
						{pendingOrders.length} order{pendingOrders.length === 1 ? '' : 's'} being set up:{' '}
						{pendingOrders
							.map((o) => `${o.count} inboxes (${o.total} a month, ordered ${o.date})`)
							.join('; ')}
						.
					</p>
					<p className="mt-2 text-sm text-slate-600" data-testid="pending-billing">
						{billingStarts}: your first paid month starts the day they are delivered.
					</p>
					{pendingOrders.some((o) => o.planned.length) ? (
						<p
							className="mt-2 text-sm text-slate-600 wrap-anywhere"
							data-testid="planned-addresses"
						>
							Planned addresses: {pendingOrders.flatMap((o) => o.planned).join(', ')}
						</p>
					) : null}
				</Card>
			) : null}
			<Form
				method="get"
				className="mb-4 flex flex-wrap items-end gap-3"
				aria-label="Filter inboxes"
			>
				<Select
					id="inbox-filter-domain"
					name="domain"
					label="Domain"
					defaultValue={filters.domainId ?? ''}
					options={[
						{ value: '', label: 'All domains' },
						...domains.map((d) => ({ value: d.id, label: d.name })),
					]}
					className="min-w-44"
				/>
				<Select
					id="inbox-filter-workspace"
					name="workspace"
					label="Workspace"
					defaultValue={filters.workspaceId ?? ''}
					options={[
						{ value: '', label: 'All workspaces' },
						...workspaces.map((w) => ({ value: w.id, label: w.name })),
					]}
					className="min-w-44"
				/>
				<Select
					id="inbox-filter-status"
					name="status"
					label="Status"
					defaultValue={filters.status ?? ''}
					options={INBOX_STATUS_OPTIONS}
					className="min-w-44"
				/>
				<Button type="submit" variant="secondary">
					Filter
				</Button>
			</Form>
			{inboxes.length === 0 ? (
				<EmptyState
					icon={<Inbox />}
					title="No inboxes here yet"
					action={
						canChange ? (
							<Link to="/ordering-inboxes" className={buttonClasses('secondary')}>
								<MailPlus aria-hidden className="size-4" />
								Order inboxes
							</Link>
						) : null
					}
				>
					<p data-testid="inboxes-empty">
						Ordered inboxes appear here once our team has set them up.
					</p>
				</EmptyState>
			) : (
				<InboxesTable inboxes={inboxes} canChange={canChange} />
			)}
			{orders.length ? (
				<section aria-labelledby="inbox-orders-heading" className="mt-8" id="orders">
					<h2 id="inbox-orders-heading" className="mb-2 text-lg font-semibold text-slate-900">
						Inbox orders
					</h2>
					<p className="mb-3 text-sm text-slate-600">
						Moving an order to another workspace moves its inboxes with it. An order waiting for
						setup can be cancelled: its payment is refunded.
					</p>
					{loaderData.bulk ? (
						<BulkProgress bulk={loaderData.bulk} closeTo={loaderData.closeBulk} />
					) : null}
					<OrdersTable
						rows={orders}
						canChange={canChange}
						preferences={loaderData.ordersTable}
						formKey={loaderData.formKey}
						bulkResult={actionData && 'result' in actionData ? actionData.result : null}
					/>
				</section>
			) : null}
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Inboxes Management')
