import { z } from 'zod'
import { accountJobsPage, findAccountJob } from '../../dashboard/account-jobs.server.ts'
import { assertBillingOwner } from '../../billing/access.server.ts'
import { getCreditHistory } from '../../billing/credit-history.server.ts'
import { listDomains } from '../../domains/domains.server.ts'
import { listInboxOrders } from '../../inboxes/orders.server.ts'
import { actingAccount } from '../../workspaces/access.server.ts'
import { defineOperation } from '../operation.ts'
import { ApiProblem } from '../problem.server.ts'
import { createdCursor, listOf, PageQuery, pageOf, readCreatedCursor } from '../pagination.ts'

// Credits, jobs, domains and inbox orders: reads, through the services the screens use.

const JobStatus = z
	.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)])
	.meta({ description: '0 pending, 1 processing, 2 finished, 3 failed' })

const JobSchema = z
	.object({
		id: z.uuid(),
		object: z.literal('job'),
		kind: z.string().meta({
			description:
				'lead-search, csv-import, company-search, enrichment, company-enrichment, upload',
		}),
		name: z.string(),
		status: JobStatus,
		progress: z.number().int(),
		error: z.string().nullable(),
		list_id: z.uuid().nullable(),
		found: z.number().int().nullable(),
		workspace_id: z.uuid().nullable(),
		created_at: z.iso.datetime(),
	})
	.meta({ id: 'Job' })

type JobRow = Awaited<ReturnType<typeof findAccountJob>>

function jobItem(row: JobRow) {
	return {
		...row,
		object: 'job' as const,
		status: row.status as 0 | 1 | 2 | 3,
		created_at: row.created_at.toISOString(),
	}
}

const LedgerLineSchema = z
	.object({
		id: z.uuid(),
		object: z.literal('credit_line'),
		created_at: z.iso.datetime(),
		delta: z.number().int(),
		balance_after: z.number().int(),
		reason: z.string(),
		subject: z.string().nullable().meta({ description: 'What the line was for.' }),
		note: z.string().nullable(),
	})
	.meta({ id: 'CreditLine' })

const Domain = z
	.object({
		id: z.uuid(),
		object: z.literal('domain'),
		name: z.string(),
		status: z.string(),
		workspace_id: z.uuid().nullable(),
		forward_to: z.string().nullable(),
		dns_checked_at: z.iso.datetime().nullable(),
		subscribed_until: z.iso.datetime().nullable(),
		created_at: z.iso.datetime(),
	})
	.meta({ id: 'Domain' })

const InboxOrder = z
	.object({
		id: z.uuid(),
		object: z.literal('inbox_order'),
		provider: z.string(),
		status: JobStatus,
		inboxes_per_domain: z.number().int(),
		domain_ids: z.array(z.uuid()),
		total_cents: z.number().int(),
		error: z.string().nullable(),
		workspace_id: z.uuid().nullable(),
		planned_inboxes: z.array(z.string()),
		created_at: z.iso.datetime(),
	})
	.meta({ id: 'InboxOrder' })

const iso = (value: Date | string | null | undefined) =>
	value ? new Date(value).toISOString() : null

const badCursor = () =>
	new ApiProblem(400, 'invalid_cursor', 'This cursor is not one of ours.', {
		errors: [{ field: 'starting_after', code: 'invalid', message: 'Not a cursor' }],
	})

// domains are few per account: an offset under the stable order (added, name) is enough
const offsetOf = (cursor: string | undefined) => {
	if (!cursor) return 0
	const offset = Number(Buffer.from(cursor, 'base64url').toString('utf8').replace(/^o:/, ''))
	if (!Number.isSafeInteger(offset) || offset < 0) throw badCursor()
	return offset
}

export const accountOperations = [
	defineOperation({
		id: 'getCreditBalance',
		method: 'GET',
		path: '/credits/balance',
		summary: 'Get the credit balance',
		tag: 'Credits',
		scope: 'credits:read',
		response: z.object({ object: z.literal('credit_balance'), balance: z.number().int() }),
		async handle({ account }) {
			actingAccount(account)
			return { object: 'credit_balance' as const, balance: account.creditBalance }
		},
	}),
	defineOperation({
		id: 'listCreditLines',
		method: 'GET',
		path: '/credits/ledger',
		summary: 'List the credit ledger',
		description: "Newest first; the owner's tokens only, as billing is the owner's.",
		tag: 'Credits',
		scope: 'credits:read',
		query: PageQuery.extend({
			starting_after: z.uuid({ error: 'Not a cursor' }).optional().meta({
				description: 'The `next_cursor` (a line id) of the previous page.',
			}),
		}),
		response: listOf(LedgerLineSchema),
		async handle({ account, query }) {
			const accountId = assertBillingOwner(account)
			const search = new URLSearchParams(
				query.starting_after ? { before: query.starting_after, page: '2' } : {},
			)
			const history = await getCreditHistory(accountId, search, { pageSize: query.limit })
			const last = history.lines.at(-1)
			return {
				object: 'list' as const,
				data: history.lines.map((line) => ({
					id: line.id,
					object: 'credit_line' as const,
					created_at: line.at,
					delta: line.delta,
					balance_after: line.balanceAfter,
					reason: line.reason,
					subject: line.subject?.label ?? null,
					note: line.note,
				})),
				has_more: history.older !== null,
				next_cursor: history.older !== null && last ? last.id : null,
			}
		},
	}),
	defineOperation({
		id: 'listJobs',
		method: 'GET',
		path: '/jobs',
		summary: 'List jobs',
		description: 'Scrapes, imports, enrichment runs and uploads, newest first.',
		tag: 'Jobs',
		scope: 'jobs:read',
		query: PageQuery,
		response: listOf(JobSchema),
		async handle({ account, query }) {
			const after = readCreatedCursor(query.starting_after)
			if (after === undefined) throw badCursor()
			const rows = await accountJobsPage(account, { limit: query.limit, after })
			return pageOf(rows, query.limit, createdCursor, jobItem)
		},
	}),
	defineOperation({
		id: 'getJob',
		method: 'GET',
		path: '/jobs/{id}',
		summary: 'Get a job',
		tag: 'Jobs',
		scope: 'jobs:read',
		params: z.object({ id: z.uuid({ error: 'Not an id' }) }),
		response: JobSchema,
		async handle({ account, params }) {
			return jobItem(await findAccountJob(account, params.id))
		},
	}),
	defineOperation({
		id: 'listDomains',
		method: 'GET',
		path: '/domains',
		summary: 'List domains',
		description: 'Newest first. Needs domain-management access as well as the scope.',
		tag: 'Domains',
		scope: 'domains:read',
		query: PageQuery,
		response: listOf(Domain),
		async handle({ account, query }) {
			const offset = offsetOf(query.starting_after)
			const rows = await listDomains(account, undefined, { limit: query.limit + 1, offset })
			const page = pageOf(
				rows,
				query.limit,
				() => Buffer.from(`o:${offset + query.limit}`).toString('base64url'),
				(row) => ({
					id: row.id,
					object: 'domain' as const,
					name: row.name,
					status: row.status,
					workspace_id: row.workspace_id,
					forward_to: row.forward_to,
					dns_checked_at: iso(row.dns_checked_at),
					subscribed_until: iso(row.subscribed_until),
					created_at: iso(row.created_at)!,
				}),
			)
			return page
		},
	}),
	defineOperation({
		id: 'listInboxOrders',
		method: 'GET',
		path: '/inbox-orders',
		summary: 'List inbox orders',
		description: 'The 50 newest. Needs domain-management access as well as the scope.',
		tag: 'Domains',
		scope: 'domains:read',
		response: listOf(InboxOrder),
		async handle({ account }) {
			const orders = await listInboxOrders(account)
			return {
				object: 'list' as const,
				data: orders.map((order) => ({
					id: order.id,
					object: 'inbox_order' as const,
					provider: order.provider,
					status: order.status as 0 | 1 | 2 | 3,
					inboxes_per_domain: order.inboxes_per_domain,
					domain_ids: order.domain_ids,
					total_cents: order.total_cents,
					error: order.error,
					workspace_id: order.workspace_id,
					planned_inboxes: order.planned,
					created_at: order.created_at.toISOString(),
				})),
				has_more: false,
				next_cursor: null,
			}
		},
	}),
]
