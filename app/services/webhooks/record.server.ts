import { sql, type Kysely } from 'kysely'
import type { DB } from '../../../db/schema.ts'
import { webhookEventData, type WebhookEventData, type WebhookEventType } from './events.ts'

/**
 * The outbox's writer: an event is a row written in the caller's transaction, the one that
 * makes the change it reports, so a rollback takes the event with it and a commit keeps both.
 * The dispatcher (dispatch.server.ts) turns committed rows into deliveries. An account without
 * an enabled endpoint gets no row (the insert selects nothing): the hot paths that record
 * events (credits, job ends) pay one indexed probe.
 */
export async function recordEvent<T extends WebhookEventType>(
	trx: Kysely<DB>,
	event: {
		accountId: string
		workspaceId: string | null
		type: T
		data: WebhookEventData<T>
		endpointId?: string
	},
) {
	// a shape that disagrees with the documented one is our bug: fail the change, loudly
	const data = webhookEventData[event.type].parse(event.data)
	await sql`
		insert into webhook_events (account_id, workspace_id, type, data, endpoint_id)
		select ${event.accountId}::uuid, ${event.workspaceId}::uuid, ${event.type},
			${JSON.stringify(data)}::jsonb, ${event.endpointId ?? null}::uuid
		where exists (
			select 1 from webhook_endpoints
			where account_id = ${event.accountId}::uuid and status = 'enabled'
		)`.execute(trx)
}

type JobEndKind =
	'lead-scrape' | 'company-scrape' | 'import' | 'enrichment' | 'upload' | 'inbox-order'

const status = (s: number) => (s === 2 ? ('done' as const) : ('failed' as const))

/**
 * The events of a job's end, from its ended row: `<kind>.finished` (or an order's fulfilment)
 * and `job.failed` when it failed. Called by notifyJobEnd when it records the end's
 * notification, in the same transaction, so the notification's unique key makes it once per end.
 */
export async function recordJobEnd(trx: Kysely<DB>, end: { kind: JobEndKind; id: string }) {
	const failed = async (
		job: WebhookEventData<'job.failed'>['job'],
		row: { user_id: string; workspace_id: string | null; error: string | null },
	) =>
		recordEvent(trx, {
			accountId: row.user_id,
			workspaceId: row.workspace_id,
			type: 'job.failed',
			data: {
				job,
				id: end.id,
				workspace_id: row.workspace_id,
				reason: row.error || 'The job failed.',
			},
		})
	switch (end.kind) {
		case 'lead-scrape':
		case 'import': {
			const list = await trx
				.selectFrom('processing_list')
				.select(['user_id', 'workspace_id', 'name', 'status', 'error', 'found'])
				.where('id', '=', end.id)
				.executeTakeFirst()
			if (!list || list.status < 2) return
			const common = {
				list_id: end.id,
				name: list.name,
				workspace_id: list.workspace_id,
				status: status(list.status),
				error: list.status === 2 ? null : list.error,
			}
			const base = { accountId: list.user_id, workspaceId: list.workspace_id }
			if (end.kind === 'import')
				await recordEvent(trx, {
					...base,
					type: 'list_import.finished',
					data: { ...common, leads_imported: list.found },
				})
			else
				await recordEvent(trx, {
					...base,
					type: 'scrape.finished',
					data: { ...common, kind: 'leads', found: list.found },
				})
			if (list.status !== 2)
				await failed(end.kind === 'import' ? 'list_import' : 'lead_scrape', list)
			return
		}
		case 'company-scrape': {
			const list = await trx
				.selectFrom('company_scraping_list')
				.select(['user_id', 'workspace_id', 'name', 'status', 'error', 'found'])
				.where('id', '=', end.id)
				.executeTakeFirst()
			if (!list || list.status < 2) return
			await recordEvent(trx, {
				accountId: list.user_id,
				workspaceId: list.workspace_id,
				type: 'scrape.finished',
				data: {
					kind: 'companies',
					list_id: end.id,
					name: list.name,
					workspace_id: list.workspace_id,
					status: status(list.status),
					found: list.found,
					error: list.status === 2 ? null : list.error,
				},
			})
			if (list.status !== 2) await failed('company_scrape', list)
			return
		}
		case 'enrichment': {
			const run = await trx
				.selectFrom('enrichment_runs')
				.select(['user_id', 'workspace_id', 'name', 'status', 'error'])
				.select(['rows_done', 'rows_failed', 'list_id', 'company_list_id'])
				.where('id', '=', end.id)
				.executeTakeFirst()
			if (!run || run.status < 2) return
			await recordEvent(trx, {
				accountId: run.user_id,
				workspaceId: run.workspace_id,
				type: 'enrichment_run.finished',
				data: {
					run_id: end.id,
					name: run.name,
					workspace_id: run.workspace_id,
					list_id: run.list_id,
					company_list_id: run.company_list_id,
					status: status(run.status),
					rows_done: run.rows_done,
					rows_failed: run.rows_failed,
					error: run.status === 2 ? null : run.error,
				},
			})
			if (run.status !== 2) await failed('enrichment_run', run)
			return
		}
		case 'upload': {
			const upload = await trx
				.selectFrom('emailbison_upload')
				.select(['user_id', 'workspace_id', 'status', 'error', 'sent', 'rejected'])
				.select(['campaign_name', 'list_id'])
				.where('id', '=', end.id)
				.executeTakeFirst()
			if (!upload || upload.status < 2) return
			await recordEvent(trx, {
				accountId: upload.user_id,
				workspaceId: upload.workspace_id,
				type: 'emailbison_upload.finished',
				data: {
					upload_id: end.id,
					list_id: upload.list_id,
					workspace_id: upload.workspace_id,
					status: status(upload.status),
					campaign_name: upload.campaign_name,
					sent: upload.sent,
					rejected: upload.rejected,
					error: upload.status === 2 ? null : upload.error,
				},
			})
			if (upload.status !== 2) await failed('emailbison_upload', upload)
			return
		}
		case 'inbox-order': {
			const order = await trx
				.selectFrom('inbox_orders')
				.select(['user_id', 'workspace_id', 'status', 'error', 'provider'])
				.select((eb) =>
					eb
						.selectFrom('inboxes')
						.select(eb.fn.countAll<number>().as('n'))
						.where('inboxes.order_id', '=', end.id)
						.as('delivered'),
				)
				.where('id', '=', end.id)
				.executeTakeFirst()
			if (!order || order.status < 2) return
			if (order.status === 2)
				await recordEvent(trx, {
					accountId: order.user_id,
					workspaceId: order.workspace_id,
					type: 'inbox_order.fulfilled',
					data: {
						order_id: end.id,
						workspace_id: order.workspace_id,
						provider: order.provider,
						inboxes: Number(order.delivered),
					},
				})
			else await failed('inbox_order', order)
			return
		}
	}
}

/** A verification run's end (settleVerification, in its transaction; once: it ends once). */
export async function recordVerificationEnd(trx: Kysely<DB>, runId: string) {
	const run = await trx
		.selectFrom('verification_runs as r')
		.innerJoin('processing_list as l', 'l.id', 'r.list_id')
		.select(['r.user_id', 'l.workspace_id', 'r.list_id', 'r.status', 'r.error', 'r.checked'])
		.where('r.id', '=', runId)
		.executeTakeFirst()
	if (!run || run.status < 2) return
	const outcome = run.status === 2 ? 'done' : run.status === 3 ? 'failed' : 'cancelled'
	await recordEvent(trx, {
		accountId: run.user_id,
		workspaceId: run.workspace_id,
		type: 'verification.finished',
		data: {
			run_id: runId,
			list_id: run.list_id,
			workspace_id: run.workspace_id,
			status: outcome,
			checked: run.checked,
			error: outcome === 'done' ? null : run.error,
		},
	})
	if (outcome === 'failed')
		await recordEvent(trx, {
			accountId: run.user_id,
			workspaceId: run.workspace_id,
			type: 'job.failed',
			data: {
				job: 'verification',
				id: runId,
				workspace_id: run.workspace_id,
				reason: run.error || 'The verification failed.',
			},
		})
}

/**
 * A change of the credit balance (in the ledger's transaction): when it crosses the account's
 * threshold downwards, `credits.below_threshold`. Once per crossing: it fires again only after
 * the balance has been back at or above the threshold.
 */
export async function recordCreditsChange(
	trx: Kysely<DB>,
	change: { accountId: string; before: number; after: number },
) {
	if (change.after >= change.before) return
	await sql`
		insert into webhook_events (account_id, workspace_id, type, data)
		select ${change.accountId}::uuid, null, 'credits.below_threshold',
			jsonb_build_object('balance', ${change.after}::int, 'threshold', s.credits_below)
		from webhook_settings s
		where s.account_id = ${change.accountId}::uuid
			and ${change.after}::int < s.credits_below and ${change.before}::int >= s.credits_below
			and exists (
				select 1 from webhook_endpoints
				where account_id = ${change.accountId}::uuid and status = 'enabled'
			)`.execute(trx)
}
