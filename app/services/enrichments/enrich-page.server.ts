import type { SubmissionResult } from '@conform-to/react'
import { runCosts } from '../billing/credit-history.server.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { data } from 'react-router'
import { getConfig } from '../../config.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { newFormKey, oncePerSubmission } from '../idempotency/form-submissions.server.ts'
import { actingAccount, type ActingAccount } from '../workspaces/access.server.ts'
import { readFormData } from '../../utils/form-data.server.ts'
import { formErrorReply } from '../../utils/form-errors.server.ts'
import { redirectWithSuccess } from '../../utils/toast.server.ts'
import { listChains, listEnrichments } from './enrichments.server.ts'
import { parseResultsQuery, type ResultsQuery } from './results-query.ts'
import type { RunSource } from './run-enrichment.server.ts'
import { RunActionSchema, RunFilterSchema, RunSchema } from './schemas.ts'
import {
	cancelRun,
	estimateRun,
	listRuns,
	retryFailedRows,
	startRun,
	type Estimate,
} from './start-enrichment.server.ts'

// The enrich page of a lead list (/lists/:listId/enrich) and of a company list
// (/company-lists/:listId/enrich, decision 0039): one loader and one action, told which list
// they serve by the route.

/** A page of a run's rows with its Previous and Next (runResults). */
export type RunRowsPage<Row> = {
	rows: Row[]
	firstIndex: number
	previous: { page: number; before?: string } | null
	next: { page: number; after: string } | null
}

/** What the lead and company enrich pages read differently. */
export type EnrichListRows<Row> = {
	/** the rows a run takes: the list's leads or its companies */
	source: RunSource
	/** the columns a condition may name */
	columns: (account: ActingAccount, listId: string) => Promise<string[]>
	/** a page of a run's rows */
	results: (
		account: ActingAccount,
		listId: string,
		runId: string,
		query: ResultsQuery,
	) => Promise<RunRowsPage<Row>>
}

/** The enrich page's loader data for a list the route has found. */
export async function loadEnrichPage<Row>(
	account: ActingAccount,
	request: Request,
	list: { id: string; name: string; found: number },
	rows: EnrichListRows<Row>,
) {
	const listed = await listRuns(account, list.id, rows.source)
	// what each run cost, net of refunds (decision 0083): one grouped sum for all of them
	const costs = await runCosts(
		account.accountId,
		listed.map((r) => r.id),
	)
	const runs = listed.map((r) => ({ ...r, credits: costs.get(r.id) ?? 0 }))
	const search = new URL(request.url).searchParams
	const runParam = search.get('run')
	const shown = runs.find((r) => r.id === runParam) ?? runs[0] ?? null
	const resultsQuery = parseResultsQuery(search)
	// a filter in the URL (the lead list page's "Enrich these leads" link) fills the run form
	const linked = parseWithZod(search, { schema: RunFilterSchema })
	const config = getConfig()
	return {
		list: { id: list.id, name: list.name, found: list.found },
		enrichments: (await listEnrichments(account)).map((e) => ({ id: e.id, name: e.name })),
		chains: (await listChains(account)).map((c) => ({ id: c.id, name: c.name })),
		columns: await rows.columns(account, list.id),
		filter: linked.status === 'success' ? linked.value : null,
		runs,
		shown,
		resultsQuery,
		results: shown ? await rows.results(account, list.id, shown.id, resultsQuery) : null,
		hasOwnKey: account.apiKeyProviders.includes('openai'),
		creditsAvailable: Boolean(config.OPENAI_API_KEY),
		creditsPerCall: config.CREDITS_PER_ENRICHMENT,
		creditBalance: account.creditBalance,
		formKey: newFormKey(),
	}
}

export type EnrichPageData<Row> = Awaited<ReturnType<typeof loadEnrichPage<Row>>>

export type EnrichActionResult = {
	intent: string
	result: SubmissionResult<string[]>
	estimate: (Estimate & { target: string }) | null
}

/** What the lead and company enrich pages' forms do differently. */
export type EnrichListForms = {
	listId: string
	/** the rows a run takes: the list's leads or its companies */
	source: RunSource
	/** the enrich page, where each form comes back to */
	path: string
	/** the names a run and a retry are sent once under (decision 0027) */
	once: { run: string; retry: string }
	/** "lead" or "leads" for a count of rows */
	noun: (rows: number) => string
}

/**
 * The enrich page's action: estimate or start a run (intent `estimate`, `run`), cancel a run
 * or retry its failed rows (`cancel`, `retry-failed`); a bad form is 400 with its errors.
 */
export async function enrichPageAction(
	account: AccountContext | null,
	request: Request,
	list: EnrichListForms,
) {
	const formData = await readFormData(request)
	const intent = String(formData.get('intent') ?? '')
	const here = list.path
	if (intent === 'cancel' || intent === 'retry-failed') {
		const submission = parseWithZod(formData, { schema: RunActionSchema })
		if (submission.status !== 'success')
			return data<EnrichActionResult>(
				{ intent, result: submission.reply(), estimate: null },
				{ status: 400 },
			)
		try {
			if (submission.value.intent === 'cancel') {
				await cancelRun(account, submission.value.runId)
				return redirectWithSuccess(`${here}?run=${submission.value.runId}`, 'Run cancelled')
			}
			const runId = submission.value.runId
			const done = await oncePerSubmission(
				{ accountId: actingAccount(account).accountId, form: list.once.retry, formData },
				async (trx) => {
					const { rows } = await retryFailedRows(account, runId, trx)
					return {
						to: `${here}?run=${runId}`,
						message: `Retrying ${rows} row${rows === 1 ? '' : 's'}`,
					}
				},
			)
			return redirectWithSuccess(done.to, done.message)
		} catch (error) {
			return formErrorReply(error, submission, { intent, estimate: null })
		}
	}
	const submission = parseWithZod(formData, { schema: RunSchema })
	if (submission.status !== 'success')
		return data<EnrichActionResult>(
			{ intent, result: submission.reply(), estimate: null },
			{ status: 400 },
		)
	const value = submission.value
	const input = {
		listId: list.listId,
		source: list.source,
		target: value.target,
		payWith: value.payWith,
		filter: { q: value.q, where: value.where, only: value.only },
	}
	try {
		if (value.intent === 'estimate') {
			const estimate = await estimateRun(account, input)
			return data<EnrichActionResult>({
				intent,
				result: submission.reply(),
				estimate: { ...estimate, target: value.target },
			})
		}
		// sent twice: one run, one credit hold, one job
		const done = await oncePerSubmission(
			{ accountId: actingAccount(account).accountId, form: list.once.run, formData },
			async (trx) => {
				const { runId, estimate } = await startRun(account, input, trx)
				return {
					to: `${here}?run=${runId}`,
					message: `“${estimate.name}” is running on ${estimate.rows.toLocaleString('en')} ${list.noun(estimate.rows)}`,
				}
			},
		)
		return redirectWithSuccess(done.to, done.message)
	} catch (error) {
		return formErrorReply(error, submission, { intent, estimate: null })
	}
}
