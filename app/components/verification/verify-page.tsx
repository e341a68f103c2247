import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { Form, Link, useLocation } from 'react-router'
import type { z } from 'zod'
import { IdempotencyKey } from '../idempotency-key.tsx'
import { isCancelled, isRunning, JobStatusBadge, ProgressBar } from '../lists/job-status.tsx'
import { Badge } from '../ui/badge.tsx'
import { buttonClasses, SubmitButton } from '../ui/button.tsx'
import { Card, PageHeader } from '../ui/card.tsx'
import { Choice, ChoiceGroup } from '../ui/choice.tsx'
import { Field, FormErrors } from '../ui/field.tsx'
import type { VerifyActionResult } from '../../services/verification/verify-page.server.ts'
import type { VerifyRunSummary } from '../../services/verification/verify-runs.server.ts'
import {
	VerifySchema,
	VERIFY_ONLY,
	VERIFY_ONLY_LABELS,
} from '../../services/verification/schemas.ts'
import {
	STATUS_FILTERS,
	STATUS_INFO,
	type StatusFilter,
} from '../../services/verification/statuses.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { useIsPending } from '../../utils/forms.ts'
import { useLiveRefresh } from '../../utils/use-live-refresh.ts'

export type VerifyPageData = {
	list: { id: string; name: string; found: number }
	runs: VerifyRunSummary[]
	counts: Record<StatusFilter, number>
	balance: number
	payOptions: { value: string; label: string }[]
	q: string
	cacheDays: number
	formKey: string
}

const BAR_COLOURS: Record<StatusFilter, string> = {
	valid: 'bg-green-600',
	catch_all: 'bg-amber-400',
	risky: 'bg-amber-600',
	unknown: 'bg-slate-400',
	disposable: 'bg-red-400',
	invalid: 'bg-red-700',
	unverified: 'bg-slate-200',
}

/** The list's leads by status: a bar, and a link to each group on the list page. */
export function StatusSummary({
	listId,
	counts,
}: {
	listId: string
	counts: VerifyPageData['counts']
}) {
	const total = STATUS_FILTERS.reduce((sum, s) => sum + counts[s], 0)
	return (
		<div data-testid="status-summary">
			<div
				className="flex h-3 w-full overflow-hidden rounded-full bg-slate-100"
				role="img"
				aria-label={STATUS_FILTERS.map((s) => `${STATUS_INFO[s].label}: ${counts[s]}`).join(', ')}
			>
				{STATUS_FILTERS.map((s) =>
					counts[s] > 0 ? (
						<div
							key={s}
							className={BAR_COLOURS[s]}
							style={{ width: `${(counts[s] / Math.max(1, total)) * 100}%` }}
						/>
					) : null,
				)}
			</div>
			<ul className="mt-3 grid grid-cols-2 gap-2 text-sm sm:grid-cols-4">
				{STATUS_FILTERS.map((s) => (
					<li key={s} className="flex items-center gap-2">
						<span className={`size-2.5 rounded-full ${BAR_COLOURS[s]}`} aria-hidden />
						<Link
							to={`/lists/${listId}?status=${s}`}
							className="text-indigo-700 hover:underline"
							data-testid={`status-count-${s}`}
						>
							{STATUS_INFO[s].label}: {counts[s].toLocaleString('en')}
						</Link>
					</li>
				))}
			</ul>
		</div>
	)
}

function RunCard({ run, listId }: { run: VerifyRunSummary; listId: string }) {
	const running = isRunning(run.status)
	const progress = run.total ? Math.round((run.done / run.total) * 100) : 0
	return (
		<div className="space-y-2 text-sm" data-testid="verify-run">
			<div className="flex flex-wrap items-center gap-3">
				<JobStatusBadge status={run.status} error={run.error} />
				<ProgressBar value={progress} label="Verification progress" />
				<span data-testid="verify-progress">
					{run.done.toLocaleString('en')} of {run.total.toLocaleString('en')} checked
				</span>
			</div>
			<p className="text-slate-700">
				{run.provider}, {run.keyKind === 'ownKey' ? 'your own key' : 'paid with credits'}
				{run.filter.length ? ` · ${run.filter.join(' · ')}` : ''} ·{' '}
				{run.cached.toLocaleString('en')} from the cache (free)
				{run.keyKind === 'credits'
					? ` · ${(run.charged * run.creditsPerCheck).toLocaleString('en')} credits charged for definitive answers`
					: ''}
			</p>
			{run.error && !isCancelled(run.status, run.error) ? (
				<p role="alert" className="rounded-md bg-red-50 p-2 text-red-800 ring-1 ring-red-200">
					{run.error}
				</p>
			) : null}
			{run.notes.length ? (
				<ul
					className="space-y-1 rounded-md bg-amber-50 p-2 text-amber-900 ring-1 ring-amber-200"
					data-testid="verify-notes"
				>
					{run.notes.map((note) => (
						<li key={note}>{note}</li>
					))}
				</ul>
			) : null}
			{running ? (
				<Form method="post" action={`/lists/${listId}/verify`}>
					<input type="hidden" name="intent" value="cancel" />
					<input type="hidden" name="runId" value={run.id} />
					<SubmitButton variant="secondary">Cancel verification</SubmitButton>
				</Form>
			) : null}
		</div>
	)
}

/** The verify page of a lead list: its summary by status, the last run, and the form. */
export function VerifyPage({
	loaderData,
	actionData,
}: {
	loaderData: VerifyPageData
	actionData: VerifyActionResult | undefined
}) {
	const { list, runs, counts } = loaderData
	const location = useLocation()
	const latest = runs[0]
	useLiveRefresh(Boolean(latest && isRunning(latest.status)), 1500)
	const estimating = useIsPending('estimate')
	const starting = useIsPending('run')
	const [form, fields] = useForm<z.input<typeof VerifySchema>>({
		id: 'verify',
		lastResult: actionData?.intent !== 'cancel' ? actionData?.result : undefined,
		constraint: getZodConstraint(VerifySchema),
		defaultValue: {
			payWith: loaderData.payOptions.find((p) => p.value !== 'credits')?.value ?? 'credits',
			only: 'unverified',
			q: loaderData.q,
		},
		onValidate: ({ formData }) => parseWithZod(formData, { schema: VerifySchema }),
		shouldRevalidate: 'onInput',
	})
	const estimate = actionData?.estimate
	return (
		<>
			<PageHeader
				title={`Verify “${list.name}”`}
				description="Check each email before you send: bounces above 5 % burn sending domains."
				actions={
					<Link to={`/lists/${list.id}`} className={buttonClasses('secondary')}>
						Back to the list
					</Link>
				}
			/>
			<div className="grid grid-cols-1 gap-6 xl:grid-cols-3">
				<Card>
					<h2 className="text-lg font-semibold">Verify emails</h2>
					{loaderData.payOptions.length === 0 ? (
						<p className="mt-2 text-sm text-slate-700">
							Add a MillionVerifier, ZeroBounce or Reacher key on the{' '}
							<Link to="/api-keys" className="text-indigo-700 underline">
								API keys page
							</Link>{' '}
							first.
						</p>
					) : (
						<Form
							method="post"
							action={`${location.pathname}#estimate`}
							className="mt-4 space-y-4"
							{...getFormProps(form)}
						>
							<FormErrors id={form.errorId} errors={form.errors} />
							<Field
								label="Search (optional)"
								hint="Only leads whose email, name or company starts with this."
								errors={fields.q.errors}
								inputProps={getInputProps(fields.q, { type: 'search' })}
							/>
							<ChoiceGroup
								legend="Which leads"
								errors={fields.only.errors}
								errorId={fields.only.errorId}
							>
								{VERIFY_ONLY.map((only) => (
									<Choice
										key={only}
										label={VERIFY_ONLY_LABELS[only]}
										inputProps={{
											...getInputProps(fields.only, { type: 'radio', value: only }),
											id: `${fields.only.id}-${only}`,
										}}
									/>
								))}
							</ChoiceGroup>
							<ChoiceGroup
								legend="Pay with"
								hint="Credits are charged only for answers that say for sure: valid, invalid or disposable. Unknown and catch-all answers, failures and cancelled work are refunded."
								errors={fields.payWith.errors}
								errorId={fields.payWith.errorId}
							>
								{loaderData.payOptions.map((p) => (
									<Choice
										key={p.value}
										label={p.label}
										inputProps={{
											...getInputProps(fields.payWith, { type: 'radio', value: p.value }),
											id: `${fields.payWith.id}-${p.value}`,
										}}
									/>
								))}
							</ChoiceGroup>
							<SubmitButton
								name="intent"
								value="estimate"
								variant="secondary"
								pending={estimating}
								pendingText="Estimating…"
							>
								Estimate
							</SubmitButton>
							{estimate ? (
								<div
									id="estimate"
									className="scroll-mt-4 space-y-3 rounded-md bg-slate-50 p-3 text-sm ring-1 ring-slate-200"
									data-testid="verify-estimate"
								>
									<p>
										<strong>{estimate.rows.toLocaleString('en')}</strong> leads
										{estimate.filter.length ? ` (${estimate.filter.join(' · ')})` : ''}:{' '}
										<strong data-testid="estimate-to-check">
											{estimate.toCheck.toLocaleString('en')}
										</strong>{' '}
										to check with {estimate.provider},{' '}
										<span data-testid="estimate-cached">
											{estimate.cached.toLocaleString('en')} answered in the last{' '}
											{loaderData.cacheDays} days (free)
										</span>
										.{' '}
										{estimate.payWith === 'credits' ? (
											<>
												<strong data-testid="estimate-credits">
													Up to {estimate.credits.toLocaleString('en')} credits
												</strong>{' '}
												are held while it runs (you have {estimate.balance.toLocaleString('en')});
												only definitive answers are charged, the rest comes back.
											</>
										) : (
											<strong>No credits: your own key pays the provider.</strong>
										)}
									</p>
									<IdempotencyKey value={loaderData.formKey} />
									<SubmitButton
										name="intent"
										value="run"
										pending={starting}
										pendingText="Starting…"
									>
										Verify now
									</SubmitButton>
								</div>
							) : null}
						</Form>
					)}
				</Card>
				<Card className="space-y-6 xl:col-span-2">
					<section>
						<h2 className="mb-3 text-lg font-semibold">Emails by status</h2>
						<StatusSummary listId={list.id} counts={counts} />
					</section>
					{latest ? (
						<section>
							<h2 className="mb-3 text-lg font-semibold">Last verification</h2>
							<RunCard run={latest} listId={list.id} />
						</section>
					) : null}
					<section>
						<h2 className="mb-2 text-lg font-semibold">What each status means</h2>
						<dl className="grid grid-cols-1 gap-2 text-sm sm:grid-cols-2">
							{STATUS_FILTERS.map((s) => (
								<div key={s}>
									<dt>
										<Badge tone={STATUS_INFO[s].tone}>{STATUS_INFO[s].label}</Badge>
									</dt>
									<dd className="mt-1 text-slate-700">{STATUS_INFO[s].meaning}</dd>
								</div>
							))}
						</dl>
						<p className="mt-2 text-sm text-slate-700">
							<Badge>Role</Badge> marks addresses such as info@ or sales@: they reach a team, not a
							person.
						</p>
					</section>
				</Card>
			</div>
		</>
	)
}
