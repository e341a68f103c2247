import { getFormProps, getInputProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { data, Form, Link, useLocation } from 'react-router'
import type { z } from 'zod'
import type { Route } from './+types/enrich-company-list'
import { IdempotencyKey } from '../components/idempotency-key.tsx'
import { buttonClasses, SubmitButton } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { Badge, Choice, ChoiceGroup } from '../components/ui/choice.tsx'
import { ErrorList, FormErrors, inputClasses } from '../components/ui/field.tsx'
import { getConfig } from '../config.server.ts'
import { requestContext } from '../context.server.ts'
import { newFormKey, oncePerSubmission } from '../services/idempotency/form-submissions.server.ts'
import { RunFilterFields } from '../components/enrichments/run-filter-fields.tsx'
import {
	companyColumns,
	listChains,
	listEnrichments,
} from '../services/enrichments/enrichments.server.ts'
import {
	parseResultsQuery,
	RESULT_STATUSES,
	RESULTS_PAGE_SIZE,
	resultsSearch,
	type ResultStatus,
} from '../services/enrichments/results-query.ts'
import { FILTER_SLOTS } from '../services/enrichments/run-filter.ts'
import { RunActionSchema, RunFilterSchema, RunSchema } from '../services/enrichments/schemas.ts'
import {
	cancelRun,
	companyRunResults,
	estimateRun,
	listRuns,
	retryFailedRows,
	startRun,
	type Estimate,
} from '../services/enrichments/start-enrichment.server.ts'
import { findCompanyList } from '../services/lists/find-list.server.ts'
import { actingAccount } from '../services/workspaces/access.server.ts'
import { useIsPending } from '../utils/forms.ts'
import { FormError, replyWithFormError } from '../utils/http-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { useLiveRefresh } from '../utils/use-live-refresh.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

// The enrich page of a company list (decision 0039): the lead list's enrich page, run on the
// list's companies; the answers become columns of the companies.
export async function loader({ request, params, context }: Route.LoaderArgs) {
	const account = actingAccount(context.get(requestContext).account)
	const { list } = await findCompanyList(account, params.listId)
	const runs = await listRuns(account, list.id, 'companies')
	const search = new URL(request.url).searchParams
	const runParam = search.get('run')
	const shown = runs.find((r) => r.id === runParam) ?? runs[0] ?? null
	const resultsQuery = parseResultsQuery(search)
	// a filter in the URL fills the run form
	const linked = parseWithZod(search, { schema: RunFilterSchema })
	const config = getConfig()
	return {
		list: { id: list.id, name: list.name, found: list.found },
		enrichments: (await listEnrichments(account)).map((e) => ({ id: e.id, name: e.name })),
		chains: (await listChains(account)).map((c) => ({ id: c.id, name: c.name })),
		columns: await companyColumns(account, list.id),
		filter: linked.status === 'success' ? linked.value : null,
		runs,
		shown,
		resultsQuery,
		results: shown ? await companyRunResults(account, list.id, shown.id, resultsQuery) : null,
		hasOwnKey: account.apiKeyProviders.includes('openai'),
		creditsAvailable: Boolean(config.OPENAI_API_KEY),
		creditsPerCall: config.CREDITS_PER_ENRICHMENT,
		creditBalance: account.creditBalance,
		formKey: newFormKey(),
	}
}

type ActionResult = {
	intent: string
	result: SubmissionResult<string[]>
	estimate: (Estimate & { target: string }) | null
}

export async function action({ request, params, context }: Route.ActionArgs) {
	const { account } = context.get(requestContext)
	// another account's list is a 404 before anything is read from the form
	await findCompanyList(account, params.listId)
	const formData = await readFormData(request)
	const intent = String(formData.get('intent') ?? '')
	const here = `/company-lists/${params.listId}/enrich`
	if (intent === 'cancel' || intent === 'retry-failed') {
		const submission = parseWithZod(formData, { schema: RunActionSchema })
		if (submission.status !== 'success')
			return data<ActionResult>(
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
				{ accountId: actingAccount(account).accountId, form: 'enrich-companies-retry', formData },
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
			if (!(error instanceof FormError)) throw error
			return data<ActionResult>(
				{ intent, result: replyWithFormError(submission, error), estimate: null },
				{ status: 400 },
			)
		}
	}
	const submission = parseWithZod(formData, { schema: RunSchema })
	if (submission.status !== 'success')
		return data<ActionResult>(
			{ intent, result: submission.reply(), estimate: null },
			{ status: 400 },
		)
	const value = submission.value
	const input = {
		listId: params.listId,
		source: 'companies' as const,
		target: value.target,
		payWith: value.payWith,
		filter: { q: value.q, where: value.where, only: value.only },
	}
	try {
		if (value.intent === 'estimate') {
			const estimate = await estimateRun(account, input)
			return data<ActionResult>({
				intent,
				result: submission.reply(),
				estimate: { ...estimate, target: value.target },
			})
		}
		// sent twice: one run, one credit hold, one job
		const done = await oncePerSubmission(
			{ accountId: actingAccount(account).accountId, form: 'enrich-companies-run', formData },
			async (trx) => {
				const { runId, estimate } = await startRun(account, input, trx)
				return {
					to: `${here}?run=${runId}`,
					message: `“${estimate.name}” is running on ${estimate.rows.toLocaleString('en')} ${estimate.rows === 1 ? 'company' : 'companies'}`,
				}
			},
		)
		return redirectWithSuccess(done.to, done.message)
	} catch (error) {
		if (!(error instanceof FormError)) throw error
		return data<ActionResult>(
			{ intent, result: replyWithFormError(submission, error), estimate: null },
			{ status: 400 },
		)
	}
}

const STATUS: Record<number, { label: string; tone: 'slate' | 'indigo' | 'green' | 'amber' }> = {
	0: { label: 'Pending', tone: 'slate' },
	1: { label: 'Running', tone: 'indigo' },
	2: { label: 'Done', tone: 'green' },
	3: { label: 'Failed', tone: 'amber' },
}

function show(value: unknown) {
	if (value === undefined || value === null) return ''
	return typeof value === 'object' ? JSON.stringify(value) : String(value)
}

export default function EnrichCompanyList({ loaderData, actionData }: Route.ComponentProps) {
	const { list, runs, shown, results, resultsQuery } = loaderData
	const result = actionData as ActionResult | undefined
	const location = useLocation()
	const estimating = useIsPending('estimate')
	const running = useIsPending('run')
	const live = runs.some((r) => r.status === 0 || r.status === 1)
	useLiveRefresh(live, 1500)
	const [form, fields] = useForm<z.input<typeof RunSchema>>({
		id: 'run',
		lastResult:
			result?.intent === 'estimate' || result?.intent === 'run' ? result.result : undefined,
		constraint: getZodConstraint(RunSchema),
		defaultValue: {
			payWith: loaderData.hasOwnKey || !loaderData.creditsAvailable ? 'ownKey' : 'credits',
			q: loaderData.filter?.q ?? '',
			where: Array.from(
				{ length: FILTER_SLOTS },
				(_, i) => loaderData.filter?.where[i] ?? { column: '', op: undefined, value: '' },
			),
			only: loaderData.filter?.only ?? 'all',
		},
		onValidate: ({ formData }) => parseWithZod(formData, { schema: RunSchema }),
		shouldRevalidate: 'onInput',
	})
	const estimate = result?.estimate
	const nothing = loaderData.enrichments.length === 0 && loaderData.chains.length === 0
	return (
		<>
			<PageHeader
				title={`Enrich “${list.name}”`}
				description={`${list.found.toLocaleString('en')} ${list.found === 1 ? 'company' : 'companies'}. Results are written to each company as new columns.`}
				actions={
					<Link to={`/company-lists/${list.id}`} className={buttonClasses('secondary')}>
						Back to the list
					</Link>
				}
			/>
			<div className="grid grid-cols-1 gap-6 xl:grid-cols-3">
				<Card>
					<h2 className="text-lg font-semibold">Run an enrichment</h2>
					{nothing ? (
						<p className="mt-2 text-sm text-slate-600">
							<Link to="/enrichments" className="text-indigo-700 underline">
								Create an AI enrichment
							</Link>{' '}
							first.
						</p>
					) : (
						// without JavaScript the answer page opens at the estimate, below the long form
						<Form
							method="post"
							action={`${location.pathname}${location.search}#estimate`}
							className="mt-4 space-y-4"
							{...getFormProps(form)}
						>
							<FormErrors id={form.errorId} errors={form.errors} />
							<div>
								<label
									htmlFor={fields.target.id}
									className="block text-sm font-medium text-slate-800"
								>
									Enrichment or chain
								</label>
								<select
									id={fields.target.id}
									name={fields.target.name}
									defaultValue={
										estimate?.target ?? (fields.target.initialValue as string | undefined) ?? ''
									}
									className={`mt-1 ${inputClasses}`}
								>
									<option value="">Choose…</option>
									<optgroup label="AI enrichments">
										{loaderData.enrichments.map((e) => (
											<option key={e.id} value={`enrichment:${e.id}`}>
												{e.name}
											</option>
										))}
									</optgroup>
									<optgroup label="Chains">
										{loaderData.chains.map((c) => (
											<option key={c.id} value={`chain:${c.id}`}>
												{c.name}
											</option>
										))}
									</optgroup>
								</select>
								<ErrorList id={fields.target.errorId} errors={fields.target.errors} />
							</div>
							<RunFilterFields fields={fields} columns={loaderData.columns} companies />
							<p className="text-sm text-slate-600">
								Prompts name company columns: {'{{name}}'}, {'{{domain}}'}, {'{{industry}}'},{' '}
								{'{{employees}}'}, {'{{location}}'}, {'{{linkedin_url}}'}, {'{{description}}'}.
							</p>
							<ChoiceGroup
								legend="Pay with"
								errors={fields.payWith.errors}
								errorId={fields.payWith.errorId}
							>
								<Choice
									label="My own OpenAI-compatible key (free)"
									description={
										loaderData.hasOwnKey ? undefined : (
											<>
												Add one on the{' '}
												<Link to="/api-keys" className="underline">
													API keys
												</Link>{' '}
												page first.
											</>
										)
									}
									inputProps={{
										...getInputProps(fields.payWith, { type: 'radio', value: 'ownKey' }),
										id: `${fields.payWith.id}-own`,
									}}
								/>
								<Choice
									label={`Credits (${loaderData.creditsPerCall} per model call; you have ${loaderData.creditBalance.toLocaleString('en')})`}
									description={
										loaderData.creditsAvailable ? 'Cached answers cost nothing.' : 'Not available.'
									}
									inputProps={{
										...getInputProps(fields.payWith, { type: 'radio', value: 'credits' }),
										id: `${fields.payWith.id}-credits`,
									}}
								/>
							</ChoiceGroup>
							<SubmitButton
								name="intent"
								value="estimate"
								variant="secondary"
								pending={estimating}
								pendingText="Estimating…"
							>
								Estimate the cost
							</SubmitButton>
							{estimate ? (
								<div
									id="estimate"
									className="scroll-mt-4 space-y-3 rounded-md bg-slate-50 p-3 text-sm ring-1 ring-slate-200"
									data-testid="estimate"
								>
									<p>
										“{estimate.name}” on{' '}
										<strong data-testid="estimate-rows">
											{estimate.rows.toLocaleString('en')}{' '}
											{estimate.rows === 1 ? 'company' : 'companies'}
										</strong>
										{estimate.filter.length ? ` (${estimate.filter.join(' · ')})` : ''}:{' '}
										{estimate.calls.toLocaleString('en')} model calls at most,{' '}
										<strong>
											{estimate.payWith === 'ownKey'
												? 'free with your own key'
												: `${estimate.credits.toLocaleString('en')} credits`}
										</strong>
										. Rows answered before (cached) cost nothing and are refunded.
									</p>
									<IdempotencyKey value={loaderData.formKey} />
									<SubmitButton name="intent" value="run" pending={running} pendingText="Starting…">
										Run now
									</SubmitButton>
								</div>
							) : null}
						</Form>
					)}
				</Card>
				<Card className="xl:col-span-2">
					<div className="flex items-center justify-between">
						<h2 className="text-lg font-semibold">Runs</h2>
						<Link to="." className="text-sm text-indigo-700 underline">
							Refresh
						</Link>
					</div>
					{runs.length === 0 ? (
						<p className="mt-2 text-sm text-slate-600">No runs on this list yet.</p>
					) : (
						<ul className="mt-2 divide-y divide-slate-100" data-testid="runs">
							{runs.map((run) => (
								<li
									key={run.id}
									className={`-mx-2 flex flex-wrap items-center justify-between gap-3 rounded-md px-2 py-3 ${shown?.id === run.id ? 'bg-indigo-50/60' : ''}`}
								>
									<div className="text-sm">
										<Link
											to={`?run=${run.id}`}
											className="font-medium text-indigo-700 underline"
											aria-current={shown?.id === run.id ? 'true' : undefined}
										>
											{run.name}
										</Link>{' '}
										<Badge tone={STATUS[run.status]!.tone}>{STATUS[run.status]!.label}</Badge>{' '}
										<span className="text-slate-600">
											started{' '}
											<time dateTime={new Date(run.createdAt).toISOString()}>
												{new Date(run.createdAt).toLocaleString('en', {
													dateStyle: 'medium',
													timeStyle: 'short',
												})}
											</time>
										</span>
										{run.preparing ? (
											// the job writes the run's rows first (decision 0019)
											<p className="text-slate-600" data-testid={`run-${run.id}-counts`}>
												Preparing {run.total.toLocaleString('en')}{' '}
												{run.total === 1 ? 'company' : 'companies'}…
											</p>
										) : (
											<p className="text-slate-600" data-testid={`run-${run.id}-counts`}>
												{run.done} of {run.total} done · {run.failed} failed · {run.calls} model
												calls · {run.cached} from cache ·{' '}
												{run.keyKind === 'ownKey' ? 'your own key' : 'paid with credits'}
											</p>
										)}
										{run.filter.length ? (
											<p className="text-slate-600" data-testid={`run-${run.id}-filter`}>
												Only companies with {run.filter.join(' · ')}
											</p>
										) : null}
										{run.error ? <p className="text-red-700">{run.error}</p> : null}
									</div>
									<div className="flex gap-2">
										{run.status === 0 || run.status === 1 ? (
											<Form method="post">
												<input type="hidden" name="intent" value="cancel" />
												<input type="hidden" name="runId" value={run.id} />
												<SubmitButton variant="danger">Cancel</SubmitButton>
											</Form>
										) : run.done < run.total ? (
											<Form method="post">
												<input type="hidden" name="intent" value="retry-failed" />
												<input type="hidden" name="runId" value={run.id} />
												<IdempotencyKey value={loaderData.formKey} />
												<SubmitButton variant="secondary">Retry failed rows</SubmitButton>
											</Form>
										) : null}
									</div>
								</li>
							))}
						</ul>
					)}
					{shown && results ? (
						<RunResults run={shown} results={results} status={resultsQuery.status} key={shown.id} />
					) : null}
				</Card>
			</div>
		</>
	)
}

type ResultsData = NonNullable<Route.ComponentProps['loaderData']['results']>
type RunData = NonNullable<Route.ComponentProps['loaderData']['shown']>

/** A run's companies, a page at a time, with a filter by row status. */
function RunResults({
	run,
	results,
	status,
}: {
	run: RunData
	results: ResultsData
	status: ResultStatus
}) {
	const counts: Record<ResultStatus, number> = {
		all: run.total,
		done: run.done,
		failed: run.failed,
		pending: Math.max(0, run.total - run.done - run.failed),
	}
	const { rows, firstIndex, previous, next } = results
	const lastIndex = firstIndex + rows.length - 1
	return (
		<div className="mt-6">
			<h3 className="font-semibold">Results of “{run.name}”</h3>
			<nav aria-label="Rows by status" className="mt-2 flex flex-wrap gap-1 text-sm">
				{RESULT_STATUSES.map((s) => (
					<Link
						key={s.key}
						to={resultsSearch({ run: run.id, status: s.key })}
						aria-current={status === s.key ? 'true' : undefined}
						className={`rounded px-2 py-1 ${status === s.key ? 'bg-indigo-50 font-semibold text-indigo-800' : 'text-slate-600 hover:bg-slate-100'}`}
					>
						{s.label} ({counts[s.key].toLocaleString('en')})
					</Link>
				))}
			</nav>
			{/* on a phone the table scrolls sideways rather than squeezing the answers to a word a line */}
			<div
				className="relative mt-2 overflow-x-auto focus-visible:outline-2 focus-visible:outline-indigo-600"
				// focusable, so the keyboard can scroll it too
				tabIndex={0}
				role="region"
				aria-label={`Results of “${run.name}”`}
			>
				<table className="w-full text-left text-sm" data-testid="results">
					<caption className="sr-only">Companies of this run, {RESULTS_PAGE_SIZE} a page</caption>
					<thead>
						<tr className="text-slate-600">
							<th className="py-1 pr-4">Name</th>
							<th className="py-1 pr-4">Domain</th>
							{run.outputColumns.map((c) => (
								<th key={c} className="min-w-56 py-1 pr-4">
									{c}
								</th>
							))}
							<th className="py-1">Status</th>
						</tr>
					</thead>
					<tbody>
						{rows.length === 0 ? (
							<tr>
								<td colSpan={run.outputColumns.length + 3} className="py-3 text-slate-600">
									{status === 'all' ? 'No companies in this run.' : `No ${status} rows.`}
								</td>
							</tr>
						) : (
							rows.map((row) => (
								<tr
									key={row.id}
									className="border-t border-slate-100 align-top"
									data-testid="result-row"
								>
									<td className="py-1 pr-4">{row.name}</td>
									<td className="py-1 pr-4 whitespace-nowrap">{row.domain}</td>
									{run.outputColumns.map((c) => (
										<td key={c} className="py-1 pr-4">
											{show(row.data[c])}
										</td>
									))}
									<td className="py-1">
										<Badge tone={STATUS[row.status]!.tone}>{STATUS[row.status]!.label}</Badge>
										{row.error ? <p className="text-red-700">{row.error}</p> : null}
									</td>
								</tr>
							))
						)}
					</tbody>
				</table>
			</div>
			<nav
				aria-label="Result pages"
				className="mt-3 flex flex-wrap items-center justify-between gap-3 text-sm"
			>
				<p className="text-slate-600" data-testid="results-page">
					{rows.length > 0
						? `${firstIndex.toLocaleString('en')}–${lastIndex.toLocaleString('en')} of ${counts[status].toLocaleString('en')}`
						: ''}
				</p>
				<div className="flex gap-2">
					{previous ? (
						<Link
							to={resultsSearch({ run: run.id, status, ...previous })}
							className={buttonClasses('secondary')}
							rel="prev"
						>
							Previous
						</Link>
					) : null}
					{next ? (
						<Link
							to={resultsSearch({ run: run.id, status, ...next })}
							className={buttonClasses('secondary')}
							rel="next"
						>
							Next
						</Link>
					) : null}
				</div>
			</nav>
		</div>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Enrich company list')
