import { Form } from 'react-router'
import { IdempotencyKey } from '../idempotency-key.tsx'
import { Badge } from '../ui/badge.tsx'
import { SubmitButton } from '../ui/button.tsx'
import { Card } from '../ui/card.tsx'
import { Choice } from '../ui/choice.tsx'
import { FormErrors } from '../ui/field.tsx'
import { LocalTime } from '../ui/local-time.tsx'
import { Select } from '../ui/select.tsx'
import { useIsPending } from '../../utils/forms.ts'
import type { ScopeOption } from './dnc-forms.tsx'

export type SyncRunView = {
	id: string
	status: string
	total: number
	sent: number
	failed: number
	pulled: number
	pull: boolean
	problems: { workspace: string; what: string; reason: string }[]
	error: string | null
	finishedAt: string | null
}

export type EntrySyncView =
	| { state: 'synced' }
	| { state: 'not-synced'; detail: string }
	| { state: 'failed'; reason: string }

/** An entry's state in EmailBison, in words (the reason when it could not be synced). */
export function EntrySyncBadge({ sync }: { sync: EntrySyncView | undefined }) {
	if (!sync) return <span className="text-xs text-slate-500">—</span>
	if (sync.state === 'synced') return <Badge tone="green">Synced</Badge>
	if (sync.state === 'failed')
		return (
			<span className="text-xs">
				<Badge tone="red">Could not sync</Badge> <span className="text-red-800">{sync.reason}</span>
			</span>
		)
	return (
		<span className="text-xs">
			<Badge tone="amber">Not synced</Badge> <span className="text-slate-600">{sync.detail}</span>
		</span>
	)
}

/**
 * Send the entries to EmailBison's blacklists (and, for admins, bring its blacklist and
 * unsubscribed leads in). A plain form: works without JavaScript; its key makes a double submit
 * one sync.
 */
export function SyncPanel({
	connected,
	canPull,
	scopes,
	formKey,
	run,
	locale,
	errors,
}: {
	connected: boolean
	canPull: boolean
	scopes: ScopeOption[]
	formKey: string
	run: SyncRunView | null
	locale: string
	errors: string[] | undefined
}) {
	const syncing = useIsPending('sync')
	const active = run && (run.status === 'queued' || run.status === 'running')
	return (
		<Card>
			<h2 className="text-lg font-semibold">EmailBison blacklists</h2>
			{!connected ? (
				<p className="mt-2 text-sm text-slate-600">
					Connect EmailBison in Settings to send these entries to its blacklisted emails and
					domains.
				</p>
			) : (
				<Form method="post" className="mt-4 space-y-4" id="dnc-sync">
					<input type="hidden" name="intent" value="sync" />
					<IdempotencyKey value={formKey} />
					<FormErrors errors={errors} />
					<Select
						id="sync-scope"
						name="scope"
						label="Entries to send"
						options={scopes}
						defaultValue={scopes[0]?.value ?? ''}
					/>
					{canPull ? (
						<Choice
							label="Also bring in EmailBison’s blacklist and unsubscribed leads"
							description="They are added here as account-wide entries, reason “Imported from EmailBison”."
							inputProps={{ id: 'sync-pull', name: 'pull', type: 'checkbox', defaultChecked: true }}
						/>
					) : null}
					<SubmitButton pending={syncing} pendingText="Starting…">
						Sync with EmailBison
					</SubmitButton>
				</Form>
			)}
			{run ? (
				<div className="mt-4 space-y-2 text-sm" role="status" data-testid="dnc-sync-status">
					<p>
						{active ? (
							<>
								<Badge tone="indigo">Syncing</Badge> {run.sent.toLocaleString('en')} of{' '}
								{run.total.toLocaleString('en')} sent
							</>
						) : run.status === 'failed' ? (
							<>
								<Badge tone="red">Sync stopped</Badge> {run.error}
							</>
						) : (
							<>
								<Badge tone="green">Sync done</Badge> {run.sent.toLocaleString('en')} sent
								{run.failed ? `, ${run.failed.toLocaleString('en')} could not be sent` : ''}
								{run.pull ? `, ${run.pulled.toLocaleString('en')} brought in` : ''}
								{run.finishedAt ? (
									<>
										{' '}
										(<LocalTime value={run.finishedAt} locale={locale} />)
									</>
								) : null}
							</>
						)}
					</p>
					{run.problems.length ? (
						<ul className="space-y-0.5 text-amber-900" data-testid="dnc-sync-problems">
							{run.problems.map((p) => (
								<li key={`${p.workspace}-${p.what}`}>
									Could not sync {p.what} ({p.workspace}): {p.reason}.
								</li>
							))}
						</ul>
					) : null}
				</div>
			) : null}
		</Card>
	)
}
