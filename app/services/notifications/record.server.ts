import { sql, type Kysely } from 'kysely'
import type { DB } from '../../../db/schema.ts'
import { enqueue } from '../../jobs/enqueue.server.ts'
import { inTransaction } from '../../utils/transaction.server.ts'
import { recordJobEnd } from '../webhooks/record.server.ts'
import type { NotificationKind } from './kinds.ts'

/**
 * The end of a long job, as its owner's code knows it: which row ended. Every status row here
 * uses 2 for done and 3 for failed (lists, runs, uploads, inbox orders).
 */
export type JobEnd =
	| { kind: 'lead-scrape' | 'company-scrape' | 'import' | 'enrichment' | 'upload'; id: string }
	| { kind: 'inbox-order'; id: string }
	/** `id`: the Stripe invoice whose payment failed */
	| { kind: 'renewal'; id: string; accountId: string; link?: string }
	/** `id`: the health check (history row) that found a healthy domain failing (issue 38) */
	| {
			kind: 'domain-health'
			id: string
			accountId: string
			workspaceId: string | null
			title: string
			body: string
			link: string
	  }

type Ended = {
	kind: NotificationKind
	accountId: string
	workspaceId: string | null
	round: number
	failed: boolean
	title: string
	body: string
	link: string
}

const n = (count: number) => count.toLocaleString('en')
/** "1 lead", "2 leads" */
const of = (count: number, one: string, many = `${one}s`) =>
	`${n(count)} ${count === 1 ? one : many}`

/**
 * Records the notification of a job's end, once: call it in the transaction that ends the job
 * (and again wherever a re-run finds the job already ended: a crash between the end and this
 * call is then made good). The unique key (kind, subject, round) makes every later call a
 * no-op, and the mail is queued with the row, in the same transaction (an outbox: the
 * notification-mail job sends it from the row). Nothing happens while the row has not ended.
 * True when this call recorded it.
 */
export async function notifyJobEnd(executor: Kysely<DB>, end: JobEnd): Promise<boolean> {
	return inTransaction(executor, async (trx) => {
		const ended = await describeEnd(trx, end)
		if (!ended) return false
		const row = await trx
			.insertInto('notifications')
			.values({
				account_id: ended.accountId,
				workspace_id: ended.workspaceId,
				kind: ended.kind,
				subject_id: end.id,
				round: ended.round,
				failed: ended.failed,
				title: ended.title,
				body: ended.body,
				link: ended.link,
			})
			.onConflict((oc) => oc.constraint('notifications_once').doNothing())
			.returning('id')
			.executeTakeFirst()
		if (!row) return false
		await enqueue('notification-mail', { notificationId: row.id }, { db: trx })
		// the end's webhook events: once, with the notification (decision 0094)
		if (end.kind !== 'renewal' && end.kind !== 'domain-health') await recordJobEnd(trx, end)
		return true
	})
}

/** What the ended row says, for the notification and its mail; undefined while it runs. */
async function describeEnd(trx: Kysely<DB>, end: JobEnd): Promise<Ended | undefined> {
	switch (end.kind) {
		case 'lead-scrape':
		case 'import': {
			const list = await trx
				.selectFrom('processing_list as l')
				.leftJoin('apollo_requests as r', 'r.list_id', 'l.id')
				.select(['l.user_id', 'l.workspace_id', 'l.name', 'l.status', 'l.error', 'l.found'])
				.select(sql<number>`coalesce(r.attempt, 0)`.as('attempt'))
				.where('l.id', '=', end.id)
				.executeTakeFirst()
			if (!list || list.status < 2) return
			const failed = list.status !== 2
			const search = end.kind === 'lead-scrape'
			const what = search ? `Lead search “${list.name}”` : `Import of “${list.name}”`
			return {
				kind: search ? 'scrape' : 'import',
				accountId: list.user_id,
				workspaceId: list.workspace_id,
				round: list.attempt,
				failed,
				title: failed
					? `${what} failed`
					: `${what} finished: ${of(list.found, 'lead')} ${search ? 'found' : 'imported'}`,
				body: list.error ?? '',
				link: failed && !search ? `/lists/${end.id}/import-report` : `/lists/${end.id}`,
			}
		}
		case 'company-scrape': {
			const list = await trx
				.selectFrom('company_scraping_list')
				.select(['user_id', 'workspace_id', 'name', 'status', 'error', 'found', 'attempt'])
				.where('id', '=', end.id)
				.executeTakeFirst()
			if (!list || list.status < 2) return
			const failed = list.status !== 2
			return {
				kind: 'scrape',
				accountId: list.user_id,
				workspaceId: list.workspace_id,
				round: list.attempt,
				failed,
				title: failed
					? `Company search “${list.name}” failed`
					: `Company search “${list.name}” finished: ${of(list.found, 'company', 'companies')} found`,
				body: list.error ?? '',
				link: `/company-lists/${end.id}`,
			}
		}
		case 'enrichment': {
			const run = await trx
				.selectFrom('enrichment_runs')
				.select(['user_id', 'workspace_id', 'name', 'status', 'error', 'attempt'])
				.select(['rows_done', 'rows_failed', 'list_id', 'company_list_id'])
				.where('id', '=', end.id)
				.executeTakeFirst()
			if (!run || run.status < 2) return
			const failed = run.status !== 2
			const rowsFailed = run.rows_failed > 0 ? `, ${n(run.rows_failed)} failed` : ''
			return {
				kind: 'enrichment',
				accountId: run.user_id,
				workspaceId: run.workspace_id,
				round: run.attempt,
				failed,
				title: failed
					? `Enrichment “${run.name}” failed`
					: `Enrichment “${run.name}” finished: ${of(run.rows_done, 'row')} enriched${rowsFailed}`,
				body: run.error ?? '',
				link: run.company_list_id
					? `/company-lists/${run.company_list_id}/enrich`
					: `/lists/${run.list_id}/enrich`,
			}
		}
		case 'upload': {
			const upload = await trx
				.selectFrom('emailbison_upload as u')
				.leftJoin('processing_list as l', 'l.id', 'u.list_id')
				.select(['u.user_id', 'u.workspace_id', 'u.status', 'u.error', 'u.sent', 'u.rejected'])
				.select(['u.campaign_name', 'l.name'])
				.where('u.id', '=', end.id)
				.executeTakeFirst()
			if (!upload || upload.status < 2) return
			const failed = upload.status !== 2
			const what = `Upload of “${upload.name ?? 'a list'}” to EmailBison`
			const rejected = upload.rejected > 0 ? `, ${n(upload.rejected)} rejected` : ''
			return {
				kind: 'upload',
				accountId: upload.user_id,
				workspaceId: upload.workspace_id,
				round: 0,
				failed,
				title: failed
					? `${what} failed`
					: `${what} finished: ${of(upload.sent, 'lead')} sent${rejected}`,
				body: upload.error ?? (upload.campaign_name ? `Campaign: ${upload.campaign_name}` : ''),
				link: '/uploads',
			}
		}
		case 'inbox-order': {
			const order = await trx
				.selectFrom('inbox_orders')
				.select(['user_id', 'workspace_id', 'status', 'error', 'provider'])
				// what was delivered (`quantity` is not the inbox count of every kind of order)
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
			const failed = order.status !== 2
			return {
				kind: 'inbox-order',
				accountId: order.user_id,
				workspaceId: order.workspace_id,
				round: 0,
				failed,
				title: failed
					? 'Your inbox order failed'
					: Number(order.delivered) === 1
						? 'Your inbox is ready'
						: `Your ${n(Number(order.delivered))} inboxes are ready`,
				body: failed
					? (order.error ?? '')
					: 'Their addresses and passwords are on the Inboxes page.',
				link: '/inboxes',
			}
		}
		case 'renewal':
			return {
				kind: 'renewal',
				accountId: end.accountId,
				workspaceId: null,
				round: 0,
				failed: true,
				title: 'A renewal payment failed',
				body: 'Stripe could not take the payment for your subscription. Update your card in the billing portal to keep what you pay for.',
				link: end.link ?? '/subscription',
			}
		case 'domain-health':
			return { ...end, round: 0, failed: true }
	}
}
