import { Form } from 'react-router'
import type { DeliveryRow, EndpointSummary } from '../../services/webhooks/endpoints.server.ts'
import { WEBHOOK_EVENT_LABELS, type WebhookEventType } from '../../services/webhooks/events.ts'
import { ROTATION_OVERLAPS } from '../../services/webhooks/schemas.ts'
import { ConfirmDelete } from '../lists/confirm-delete.tsx'
import { Badge } from '../ui/badge.tsx'
import { SubmitButton } from '../ui/button.tsx'
import { Card } from '../ui/card.tsx'
import { DataTable } from '../ui/data-table.tsx'
import { LocalTime } from '../ui/local-time.tsx'
import { Select } from '../ui/select.tsx'

type Endpoint = Omit<
	EndpointSummary,
	'createdAt' | 'previousSecretUntil' | 'failingSince' | 'deliveries'
> & {
	previousSecretUntil: Date | string | null
	failingSince: Date | string | null
	deliveries: (Omit<DeliveryRow, 'createdAt' | 'nextAttemptAt'> & {
		createdAt: Date | string
		nextAttemptAt: Date | string | null
	})[]
}

const iso = (value: Date | string) => new Date(value).toISOString()

/** A secret just made: shown this once, with how to use it. */
export function NewSecret({ endpointId, secret }: { endpointId: string | null; secret: string }) {
	return (
		<Card className="ring-2 ring-amber-300">
			<h2 id="new-secret" className="scroll-mt-4 text-lg font-semibold">
				Signing secret
			</h2>
			<p className="mt-1 text-sm text-slate-700">
				Copy it now: it is not shown again. Verify each delivery’s <code>webhook-signature</code>{' '}
				with it (see the README’s “Webhooks” section).
			</p>
			<p
				className="mt-3 rounded-md bg-slate-50 p-3 font-mono text-sm break-all"
				data-testid="new-secret"
			>
				{secret}
			</p>
			{endpointId ? (
				<p className="mt-2 text-xs text-slate-600">
					<a href={`#endpoint-${endpointId}`} className="underline">
						Its endpoint
					</a>
				</p>
			) : null}
		</Card>
	)
}

function ActionButton({
	endpointId,
	intent,
	children,
	variant = 'secondary',
}: {
	endpointId: string
	intent: string
	children: string
	variant?: 'secondary' | 'primary'
}) {
	return (
		<Form method="post">
			<input type="hidden" name="intent" value={intent} />
			<input type="hidden" name="endpointId" value={endpointId} />
			<SubmitButton variant={variant} className="px-3 py-1.5">
				{children}
			</SubmitButton>
		</Form>
	)
}

const STATUS_TONE = { enabled: 'green', paused: 'amber', disabled: 'red' } as const
const STATUS_LABEL = { enabled: 'Enabled', paused: 'Paused', disabled: 'Disabled' } as const

/** One endpoint: what it gets, its controls and its latest deliveries. */
export function EndpointCard({
	endpoint,
	workspaces,
}: {
	endpoint: Endpoint
	workspaces: { id: string; name: string }[]
}) {
	const names = endpoint.workspaceIds.map(
		(id) => workspaces.find((w) => w.id === id)?.name ?? 'a workspace',
	)
	return (
		<Card>
			<div
				id={`endpoint-${endpoint.id}`}
				className="flex scroll-mt-4 flex-wrap items-center justify-between gap-2"
			>
				<h2 className="min-w-0 text-lg font-semibold break-all" data-testid="endpoint-url">
					{endpoint.url}
				</h2>
				<Badge tone={STATUS_TONE[endpoint.status]}>{STATUS_LABEL[endpoint.status]}</Badge>
			</div>
			{endpoint.description ? (
				<p className="mt-1 text-sm text-slate-600">{endpoint.description}</p>
			) : null}
			{endpoint.disabledReason ? (
				<p className="mt-1 text-sm text-red-700">
					{endpoint.disabledReason} Enable it once the receiver works.
				</p>
			) : null}
			<p className="mt-2 text-sm text-slate-700">
				Events:{' '}
				{endpoint.events.map((e) => WEBHOOK_EVENT_LABELS[e as WebhookEventType] ?? e).join(', ')}
			</p>
			<p className="mt-1 text-sm text-slate-700">
				Workspaces: {names.length ? names.join(', ') : 'all, and the account’s own events'}
			</p>
			{endpoint.previousSecretUntil ? (
				<p className="mt-1 text-sm text-slate-700" data-testid="overlap">
					The previous secret signs too until{' '}
					<LocalTime value={iso(endpoint.previousSecretUntil)} />.
				</p>
			) : null}
			<div className="mt-4 flex flex-wrap items-start gap-3 border-t border-slate-100 pt-4">
				{endpoint.status === 'enabled' ? (
					<>
						<ActionButton endpointId={endpoint.id} intent="test">
							Send test event
						</ActionButton>
						<ActionButton endpointId={endpoint.id} intent="pause">
							Pause
						</ActionButton>
					</>
				) : (
					<ActionButton endpointId={endpoint.id} intent="resume" variant="primary">
						{endpoint.status === 'paused' ? 'Resume' : 'Enable'}
					</ActionButton>
				)}
				<Form method="post" className="flex flex-wrap items-end gap-2">
					<input type="hidden" name="intent" value="rotate" />
					<input type="hidden" name="endpointId" value={endpoint.id} />
					<Select
						id={`overlap-${endpoint.id}`}
						name="overlapHours"
						label="Old secret keeps signing for"
						defaultValue="24"
						options={ROTATION_OVERLAPS.map((o) => ({ value: String(o.hours), label: o.label }))}
					/>
					<SubmitButton variant="secondary" className="px-3 py-1.5">
						Rotate secret
					</SubmitButton>
				</Form>
				<ConfirmDelete
					name={endpoint.url}
					consequence="Its deliveries and their log go with it."
					fields={{ intent: 'delete', endpointId: endpoint.id }}
				/>
			</div>
			<h3 className="mt-6 mb-2 text-sm font-semibold text-slate-800">Latest deliveries</h3>
			{endpoint.deliveries.length === 0 ? (
				<p className="text-sm text-slate-600">None yet. Send a test event to see one.</p>
			) : (
				<DataTable
					label={`Deliveries to ${endpoint.url}`}
					testId="deliveries"
					columns={[
						{ label: 'Event' },
						{ label: 'Status' },
						{ label: 'Attempts', align: 'right' },
						{ label: 'Answer' },
						{ label: 'Latency', align: 'right' },
						{ label: 'Created' },
						{ label: 'Actions', hidden: true },
					]}
				>
					{endpoint.deliveries.map((d) => (
						<tr key={d.id}>
							<td className="px-4 py-2 font-mono text-xs">{d.type}</td>
							<td className="px-4 py-2">
								<Badge
									tone={
										d.status === 'succeeded' ? 'green' : d.status === 'failed' ? 'red' : 'amber'
									}
								>
									{d.status === 'pending' && d.attempts > 0 ? 'retrying' : d.status}
								</Badge>
							</td>
							<td className="px-4 py-2 text-right">{d.attempts}</td>
							<td className="max-w-64 px-4 py-2 text-xs">
								{d.lastStatusCode ? (
									<span className="font-semibold">{d.lastStatusCode} </span>
								) : null}
								<span className="break-all text-slate-600">
									{d.lastError ?? d.lastResponse?.slice(0, 120)}
								</span>
							</td>
							<td className="px-4 py-2 text-right">
								{d.lastLatencyMs === null ? '' : `${d.lastLatencyMs} ms`}
							</td>
							<td className="px-4 py-2 whitespace-nowrap">
								<LocalTime value={iso(d.createdAt)} />
							</td>
							<td className="px-4 py-2">
								{endpoint.status === 'enabled' ? (
									<Form method="post">
										<input type="hidden" name="intent" value="redeliver" />
										<input type="hidden" name="endpointId" value={endpoint.id} />
										<input type="hidden" name="deliveryId" value={d.id} />
										<SubmitButton variant="secondary" className="px-2 py-1 text-xs">
											Redeliver
										</SubmitButton>
									</Form>
								) : null}
							</td>
						</tr>
					))}
				</DataTable>
			)}
		</Card>
	)
}
