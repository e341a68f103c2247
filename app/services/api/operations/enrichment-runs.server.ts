import { z } from 'zod'
import {
	cancelRun,
	estimateRun,
	findRunSummary,
	runResults,
	startRun,
} from '../../enrichments/start-enrichment.server.ts'
import { RunSchema } from '../../enrichments/schemas.ts'
import { defineOperation } from '../operation.ts'
import { listOf, PageQuery } from '../pagination.ts'
import { runResource, RunIdParams } from '../run-resource.ts'

// Enrichment runs through the enrich page's service: started on a whole list or the part a
// filter takes (the page's own filter fields), with its estimate as the dry run; their status,
// their results page by page, and cancel.

const JobStatus = z
	.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)])
	.meta({ description: '0 pending, 1 processing, 2 finished, 3 failed or cancelled' })

const Cost = z.object({
	credits: z.number().int().meta({ description: 'Credits held (0 on your own key).' }),
	pay_with: z.enum(['ownKey', 'credits']),
})

const EnrichmentRun = z
	.object({
		id: z.uuid(),
		object: z.literal('enrichment_run'),
		name: z.string().meta({ description: 'The enrichment or chain it runs.' }),
		list_id: z.uuid(),
		source: z.enum(['leads', 'companies']),
		status: JobStatus,
		error: z.string().nullable(),
		total: z.number().int().meta({ description: 'Rows it takes.' }),
		preparing: z.boolean().meta({ description: 'Its rows are still being written.' }),
		done: z.number().int(),
		failed: z.number().int(),
		calls: z.number().int().meta({ description: 'Model calls made.' }),
		cached: z.number().int().meta({ description: 'Answers taken from the cache (free).' }),
		output_columns: z.array(z.string()),
		filter: z.array(z.string()).meta({ description: 'The filter in words; empty: the list.' }),
		cost: Cost,
		created_at: z.iso.datetime(),
	})
	.meta({ id: 'EnrichmentRun' })

const Estimate = z
	.object({
		object: z.literal('enrichment_run_estimate'),
		dry_run: z.literal(true),
		name: z.string(),
		rows: z.number().int(),
		calls: z.number().int().meta({ description: 'At most this many paid model calls.' }),
		cached: z.number().int().nullable().meta({ description: 'Answers already cached (free).' }),
		cost: Cost.extend({
			charged: z.number().int().nullable().meta({ description: 'What it would charge now.' }),
		}),
		filter: z.array(z.string()),
	})
	.meta({ id: 'EnrichmentRunEstimate' })

const Result = z
	.object({
		id: z.uuid().meta({ description: 'The lead (or company).' }),
		object: z.literal('enrichment_result'),
		email: z.string().optional(),
		name: z.string(),
		domain: z.string().optional().meta({ description: 'A company run.' }),
		status: z.enum(['pending', 'done', 'failed']),
		error: z.string().nullable(),
		output: z.record(z.string(), z.unknown()).meta({ description: "The run's output columns." }),
	})
	.meta({ id: 'EnrichmentResult' })

// the enrich page's own fields (which enrichment, how to pay, the filter), on a list
const StartBody = RunSchema.omit({ intent: true }).extend({
	list_id: z.uuid({ error: 'Choose a list' }).meta({ description: 'A lead or company list.' }),
	source: z
		.enum(['leads', 'companies'])
		.default('leads')
		.meta({ description: 'Whether `list_id` is a lead list or a company list.' }),
	dry_run: z.boolean().optional().meta({
		description: 'Answer the estimate (200) without starting it or holding credits.',
	}),
})

type Summary = Awaited<ReturnType<typeof findRunSummary>>

function runItem(run: Summary) {
	return {
		id: run.id,
		object: 'enrichment_run' as const,
		name: run.name,
		list_id: run.listId,
		source: run.source,
		status: run.status as 0 | 1 | 2 | 3,
		error: run.error,
		total: run.total,
		preparing: run.preparing,
		done: run.done,
		failed: run.failed,
		calls: run.calls,
		cached: run.cached,
		output_columns: run.outputColumns,
		filter: run.filter,
		cost: { credits: run.creditsReserved, pay_with: run.keyKind as 'ownKey' | 'credits' },
		created_at: run.createdAt.toISOString(),
	}
}

const ROW_STATUS = { 0: 'pending', 1: 'pending', 2: 'done', 3: 'failed' } as const

/** The estimate as a dry run answers it. */
function estimateItem(estimate: Awaited<ReturnType<typeof estimateRun>>) {
	return {
		object: 'enrichment_run_estimate',
		dry_run: true,
		name: estimate.name,
		rows: estimate.rows,
		calls: estimate.calls,
		cached: estimate.cached,
		cost: {
			credits: estimate.credits,
			pay_with: estimate.payWith,
			charged: estimate.charged,
		},
		filter: estimate.filter,
	}
}

const startInput = (body: z.output<typeof StartBody>) => ({
	listId: body.list_id,
	source: body.source,
	target: body.target,
	payWith: body.payWith,
	filter: { q: body.q, where: body.where, only: body.only },
})

export const enrichmentRunOperations = [
	...runResource({
		path: '/enrichment-runs',
		noun: 'EnrichmentRun',
		tag: 'Enrichment',
		family: 'enrichments',
		screen: 'enrich-list',
		item: EnrichmentRun,
		find: async (account, id) => runItem(await findRunSummary(account, id)),
		start: {
			summary: 'Start an enrichment run',
			description:
				'Runs an enrichment or a chain (`target`: `enrichment:<id>` or `chain:<id>`) on a list, or on the part of it a search (`q`), conditions (`where`) and `only` take, as the enrich page does. `dry_run: true` answers 200 with the estimate.',
			body: StartBody,
			run: async (account, body) => (await startRun(account, startInput(body))).runId,
			estimate: {
				schema: Estimate,
				of: async (account, body) => estimateItem(await estimateRun(account, startInput(body))),
			},
		},
		get: { summary: 'Get an enrichment run' },
		cancel: {
			summary: 'Cancel an enrichment run',
			description: 'Stops it; the answers so far are kept, unused credits come back.',
			run: (account, id) => cancelRun(account, id),
		},
	}),
	defineOperation({
		id: 'listEnrichmentResults',
		method: 'GET',
		path: '/enrichment-runs/{id}/results',
		summary: "List an enrichment run's results",
		description: "Its rows in the list's order, with each one's answers and status.",
		tag: 'Enrichment',
		scope: 'enrichments:read',
		params: RunIdParams,
		query: PageQuery.extend({
			starting_after: z.uuid({ error: 'Not a cursor' }).optional().meta({
				description: 'The `next_cursor` of the previous page.',
			}),
			status: z
				.enum(['all', 'done', 'failed', 'pending'])
				.default('all')
				.meta({ description: 'Only the rows in this state.' }),
		}),
		response: listOf(Result),
		async handle({ account, params, query }) {
			const run = await findRunSummary(account, params.id)
			const page = await runResults(run.source, account, run.listId, run.id, {
				status: query.status,
				page: 1,
				after: query.starting_after,
				pageSize: query.limit,
			})
			return {
				object: 'list' as const,
				data: page.rows.map((row) => {
					const shown = row as typeof row & { email?: string; name: string; domain?: string }
					return {
						id: row.id,
						object: 'enrichment_result' as const,
						...(shown.email !== undefined ? { email: shown.email } : {}),
						name: shown.name,
						...(shown.domain !== undefined ? { domain: shown.domain } : {}),
						status: ROW_STATUS[row.status as 0 | 1 | 2 | 3],
						error: row.error,
						output: Object.fromEntries(
							run.outputColumns.map((column) => [column, row.data?.[column] ?? null]),
						),
					}
				}),
				has_more: page.next !== null,
				next_cursor: page.next?.after ?? null,
			}
		},
	}),
]
