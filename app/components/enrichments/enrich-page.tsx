import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { parseWithZod } from '../../utils/form-bounds.ts'
import type { ReactNode } from 'react'
import { ChevronDown } from 'lucide-react'
import { Form, Link, useLocation } from 'react-router'
import type { z } from 'zod'
import { PlaceholderChips } from './placeholder-chips.tsx'
import { RunFilterFields } from './run-filter-fields.tsx'
import { IdempotencyKey } from '../idempotency-key.tsx'
import { buttonClasses, SubmitButton } from '../ui/button.tsx'
import { Card, PageHeader } from '../ui/card.tsx'
import { Badge, Choice, ChoiceGroup } from '../ui/choice.tsx'
import { ErrorList, FormErrors, inputClasses } from '../ui/field.tsx'
import type {
	EnrichActionResult,
	EnrichPageData,
	RunRowsPage,
} from '../../services/enrichments/enrich-page.server.ts'
import {
	RESULT_STATUSES,
	RESULTS_PAGE_SIZE,
	resultsSearch,
	type ResultStatus,
} from '../../services/enrichments/results-query.ts'
import type { RunSource } from '../../services/enrichments/run-enrichment.server.ts'
import { FILTER_SLOTS } from '../../services/enrichments/run-filter.ts'
import { COMPANY_COLUMNS } from '../../services/enrichments/template.ts'
import { RunSchema } from '../../services/enrichments/schemas.ts'
import { useIsPending } from '../../utils/forms.ts'
import { useLiveRefresh } from '../../utils/use-live-refresh.ts'
import { JsonFields, isStructured } from '../ui/json-fields.tsx'
import { PageLinks } from '../ui/page-links.tsx'

/** How the enrich page speaks of a lead list and of a company list, and where it links. */
const LISTS: Record<
	RunSource,
	{
		one: string
		many: string
		/** the results table's caption: "Leads of this run" */
		caption: string
		description: (found: number) => string
		listPath: (listId: string) => string
		newEnrichmentPath: (listId: string) => string
		/** under the filter of the run form */
		hint: ReactNode
	}
> = {
	leads: {
		one: 'lead',
		many: 'leads',
		caption: 'Leads',
		description: (found) =>
			`${found.toLocaleString('en')} leads. Results are written to each lead as new columns.`,
		listPath: (listId) => `/lists/${listId}`,
		newEnrichmentPath: (listId) => `/enrichments?list=${listId}`,
		hint: null,
	},
	companies: {
		one: 'company',
		many: 'companies',
		caption: 'Companies',
		description: (found) =>
			`${found.toLocaleString('en')} ${found === 1 ? 'company' : 'companies'}. Results are written to each company as new columns.`,
		listPath: (listId) => `/company-lists/${listId}`,
		newEnrichmentPath: (listId) => `/enrichments?list=${listId}`,
		hint: (
			<PlaceholderChips
				id="company-columns"
				label="Prompts name company columns:"
				names={COMPANY_COLUMNS}
			/>
		),
	},
}

/** "12 leads", "1 company" */
function count(kind: RunSource, n: number) {
	return `${n.toLocaleString('en')} ${n === 1 ? LISTS[kind].one : LISTS[kind].many}`
}

const STATUS: Record<number, { label: string; tone: 'slate' | 'indigo' | 'green' | 'amber' }> = {
	0: { label: 'Pending', tone: 'slate' },
	1: { label: 'Running', tone: 'indigo' },
	2: { label: 'Done', tone: 'green' },
	3: { label: 'Failed', tone: 'amber' },
}

/** Answers longer than this show their first two lines, and the rest on demand. */
const LONG_ANSWER = 120

/** An answer: JSON as fields, a long text clamped to two lines with all of it on demand. */
function Answer({ value }: { value: unknown }) {
	if (value === undefined || value === null) return null
	if (isStructured(value)) return <JsonFields value={value} inline />
	const text = String(value)
	if (text.length <= LONG_ANSWER) return text
	// a <details>: the keyboard and a click open it, without JavaScript too
	return (
		<details className="group">
			<summary className="flex cursor-pointer list-none items-start gap-1 rounded focus-visible:outline-2 focus-visible:outline-indigo-600 [&::-webkit-details-marker]:hidden">
				<span className="line-clamp-2 group-open:line-clamp-none">{text}</span>
				{/* the cue, beside the two lines rather than on a third */}
				<ChevronDown
					aria-hidden
					className="mt-0.5 size-4 shrink-0 text-indigo-700 group-open:rotate-180"
				/>
				<span className="sr-only"> Show all</span>
			</summary>
		</details>
	)
}

/** The Status column: kept in view at the right of a table wider than its box. */
const STICKY_END =
	'sticky right-0 bg-white shadow-[-8px_0_8px_-8px_rgb(15_23_42/0.15)] whitespace-nowrap'

/** A row of a run's results: a lead or a company, its answers and its status. */
type RunRow = { id: string; data: Record<string, unknown>; status: number; error: string | null }

/** A column of the results table before the answers: the lead's email, the company's name. */
export type RunRowColumn<Row> = { label: string; value: (row: Row) => string; nowrap?: boolean }

/**
 * The enrich page of a lead list or of a company list: the run form (enrichment or chain,
 * which rows, pay with, estimate, run), the list's runs with cancel and retry, and the
 * results of the run shown.
 */
export function EnrichPage<Row extends RunRow>({
	kind,
	loaderData,
	actionData: result,
	rowColumns,
}: {
	kind: RunSource
	loaderData: EnrichPageData<Row>
	actionData: EnrichActionResult | undefined
	/** the columns that tell the rows apart in the results table */
	rowColumns: readonly RunRowColumn<Row>[]
}) {
	const { list, runs, shown, results, resultsQuery } = loaderData
	const words = LISTS[kind]
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
				description={words.description(list.found)}
				actions={
					<Link to={words.listPath(list.id)} className={buttonClasses('secondary')}>
						Back to the list
					</Link>
				}
			/>
			<div className="grid grid-cols-1 gap-6 xl:grid-cols-2">
				<Card>
					<h2 className="text-lg font-semibold">Run an enrichment</h2>
					{nothing ? (
						<p className="mt-2 text-sm text-slate-600">
							<Link to={words.newEnrichmentPath(list.id)} className="text-indigo-700 underline">
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
							<RunFilterFields
								fields={fields}
								columns={loaderData.columns}
								companies={kind === 'companies'}
							/>
							{words.hint}
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
										<strong data-testid="estimate-rows">{count(kind, estimate.rows)}</strong>
										{estimate.filter.length ? ` (${estimate.filter.join(' · ')})` : ''}:{' '}
										{estimate.charged === null || estimate.cached === null ? (
											<>
												{estimate.calls.toLocaleString('en')} model calls at most,{' '}
												<strong>
													{estimate.payWith === 'ownKey'
														? 'free with your own key'
														: `${estimate.credits.toLocaleString('en')} credits`}
												</strong>
												. Rows answered before (cached) cost nothing and are refunded.
											</>
										) : (
											<>
												<strong data-testid="estimate-charged">
													{estimate.payWith === 'ownKey'
														? 'free with your own key'
														: `${estimate.charged.toLocaleString('en')} credits`}
												</strong>
												{estimate.cached > 0
													? ` (${estimate.cached.toLocaleString('en')} answers already cached, free)`
													: ''}
												.
												{estimate.payWith === 'credits' && estimate.charged < estimate.credits
													? ` ${estimate.credits.toLocaleString('en')} credits are held while it runs; what is not used comes back.`
													: ''}
											</>
										)}
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
				<Card>
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
												Preparing {count(kind, run.total)}…
											</p>
										) : (
											<p className="text-slate-600" data-testid={`run-${run.id}-counts`}>
												{run.done} of {run.total} done · {run.failed} failed · {run.calls} model
												calls · {run.cached} from cache ·{' '}
												{run.keyKind === 'ownKey' ? 'your own key' : 'paid with credits'}
											</p>
										)}
										{run.preparing || run.keyKind === 'ownKey' ? null : (
											<p className="text-slate-600" data-testid={`run-${run.id}-cost`}>
												Cost: {run.credits.toLocaleString('en')} credit
												{run.credits === 1 ? '' : 's'}
												{run.status === 0 || run.status === 1 ? ' so far' : ''}
											</p>
										)}
										{run.filter.length ? (
											<p className="text-slate-600" data-testid={`run-${run.id}-filter`}>
												Only {words.many} with {run.filter.join(' · ')}
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
				</Card>
			</div>
			{/* the results take the page's whole width: the answers are the widest thing on it */}
			{shown && results ? (
				<Card className="mt-6">
					<RunResults
						kind={kind}
						run={shown}
						results={results}
						status={resultsQuery.status}
						rowColumns={rowColumns}
						key={shown.id}
					/>
				</Card>
			) : null}
		</>
	)
}

/** A run's leads or companies, a page at a time, with a filter by row status. */
function RunResults<Row extends RunRow>({
	kind,
	run,
	results,
	status,
	rowColumns,
}: {
	kind: RunSource
	run: NonNullable<EnrichPageData<Row>['shown']>
	results: RunRowsPage<Row>
	status: ResultStatus
	rowColumns: readonly RunRowColumn<Row>[]
}) {
	const counts: Record<ResultStatus, number> = {
		all: run.total,
		done: run.done,
		failed: run.failed,
		pending: Math.max(0, run.total - run.done - run.failed),
	}
	const { rows, firstIndex, previous, next } = results
	return (
		<div>
			<h2 className="text-lg font-semibold">Results of “{run.name}”</h2>
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
			{/* edge to edge in its card; on a narrow screen it scrolls sideways rather than squeezing
			    the answers to a word a line, the Status column staying in view at its right */}
			<div
				className="relative -mx-6 mt-2 overflow-x-auto focus-visible:outline-2 focus-visible:outline-indigo-600"
				// focusable, so the keyboard can scroll it too
				tabIndex={0}
				role="region"
				aria-label={`Results of “${run.name}”`}
			>
				<table
					className="w-full text-left text-sm *:*:*:px-3 *:*:*:py-1.5 *:*:*:first:pl-6 *:*:*:last:pr-6"
					data-testid="results"
				>
					<caption className="sr-only">
						{LISTS[kind].caption} of this run, {RESULTS_PAGE_SIZE} a page
					</caption>
					<thead>
						<tr className="text-slate-600">
							{rowColumns.map((c) => (
								<th key={c.label}>{c.label}</th>
							))}
							{run.outputColumns.map((c) => (
								<th key={c} className="min-w-56">
									{c}
								</th>
							))}
							<th className={STICKY_END}>Status</th>
						</tr>
					</thead>
					<tbody>
						{rows.length === 0 ? (
							<tr>
								<td
									colSpan={rowColumns.length + run.outputColumns.length + 1}
									className="text-slate-600"
								>
									{status === 'all' ? `No ${LISTS[kind].many} in this run.` : `No ${status} rows.`}
								</td>
							</tr>
						) : (
							rows.map((row) => (
								<tr
									key={row.id}
									className="border-t border-slate-100 align-top"
									data-testid="result-row"
								>
									{rowColumns.map((c) => (
										<td key={c.label} className={c.nowrap ? 'whitespace-nowrap' : undefined}>
											{c.value(row)}
										</td>
									))}
									{run.outputColumns.map((c) => (
										<td key={c} className="max-w-md">
											<Answer value={row.data[c]} />
										</td>
									))}
									<td className={STICKY_END}>
										<Badge tone={STATUS[row.status]!.tone}>{STATUS[row.status]!.label}</Badge>
										{row.error ? (
											<p className="min-w-48 whitespace-normal text-red-700">{row.error}</p>
										) : null}
									</td>
								</tr>
							))
						)}
					</tbody>
				</table>
			</div>
			<PageLinks
				label="Result pages"
				statusTestId="results-page"
				className="mt-3"
				first={firstIndex}
				count={rows.length}
				total={counts[status]}
				previous={previous ? resultsSearch({ run: run.id, status, ...previous }) : null}
				next={next ? resultsSearch({ run: run.id, status, ...next }) : null}
			/>
		</div>
	)
}
