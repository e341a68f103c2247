import { parseWithZod } from '../utils/form-bounds.ts'
import { ShieldBan } from 'lucide-react'
import { data, Form, Link } from 'react-router'
import type { Route } from './+types/do-not-contact'
import {
	AddEntryForm,
	ImportEntriesForm,
	type ScopeOption,
} from '../components/do-not-contact/dnc-forms.tsx'
import {
	EntrySyncBadge,
	SyncPanel,
	type EntrySyncView,
	type SyncRunView,
} from '../components/do-not-contact/sync-panel.tsx'
import { Badge } from '../components/ui/badge.tsx'
import { Button, buttonClasses } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { DataTable } from '../components/ui/data-table.tsx'
import { LocalTime } from '../components/ui/local-time.tsx'
import { PageLinks } from '../components/ui/page-links.tsx'
import { requestContext, type AccountContext } from '../context.server.ts'
import {
	addEntry,
	dncAccount,
	listEntries,
	removeEntry,
} from '../services/do-not-contact/entries.server.ts'
import {
	entrySyncStates,
	findDncSyncRun,
	startDncSync,
	syncAfterChange,
} from '../services/do-not-contact/eb-sync.server.ts'
import { getEmailBisonSettings } from '../services/emailbison/settings.server.ts'
import { newFormKey, oncePerSubmission } from '../services/idempotency/form-submissions.server.ts'
import {
	importEntries,
	readEntriesUpload,
	type DncImportOutcome,
} from '../services/do-not-contact/import.server.ts'
import {
	AddEntrySchema,
	DNC_REASONS,
	ImportEntriesSchema,
	RemoveEntrySchema,
	SyncEntriesSchema,
	type DncReason,
} from '../services/do-not-contact/schemas.ts'
import { formErrorReply, redirectOnFormError } from '../utils/form-errors.server.ts'
import { readFormData } from '../utils/form-data.server.ts'
import { requestLocale } from '../utils/locale.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { useLiveRefresh } from '../utils/use-live-refresh.ts'

const PAGE_SIZE = 100

export async function loader({ request, context }: Route.LoaderArgs) {
	const { account, currentWorkspaceId } = context.get(requestContext)
	const access = dncAccount(account)
	const url = new URL(request.url)
	const q = url.searchParams.get('q')?.slice(0, 200) ?? ''
	const page = Math.max(1, Number.parseInt(url.searchParams.get('page') ?? '1', 10) || 1)
	const [{ entries, total }, eb, run] = await Promise.all([
		listEntries(account, { q, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
		getEmailBisonSettings(account),
		findDncSyncRun(account, url.searchParams.get('sync')),
	])
	const syncStates = await entrySyncStates(access.acting.accountId, entries)
	const pageHref = (n: number) => {
		const params = new URLSearchParams(url.searchParams)
		params.set('page', String(n))
		return `/do-not-contact?${params}`
	}
	const scopes: ScopeOption[] = [
		...(access.canEditAccountWide ? [{ value: 'account', label: 'All workspaces (account)' }] : []),
		...access.acting.workspaces.map((w) => ({ value: w.id, label: w.name })),
	]
	const current = scopes.find((s) => s.value === currentWorkspaceId)?.value
	const syncScopes: ScopeOption[] = [
		{
			value: 'all',
			label: access.canEditAccountWide ? 'All entries' : 'All entries of my workspaces',
		},
		...access.acting.workspaces.map((w) => ({ value: w.id, label: `${w.name} only` })),
	]
	return {
		sync: {
			connected: eb.configured,
			canPull: access.canEditAccountWide,
			scopes: syncScopes,
			formKey: newFormKey(),
			run: run
				? ({
						...run,
						finishedAt: run.finishedAt?.toISOString() ?? null,
					} satisfies SyncRunView)
				: null,
		},
		q,
		total,
		scopes,
		defaultScope: access.canEditAccountWide ? 'account' : (current ?? scopes[0]?.value ?? ''),
		canEditAccountWide: access.canEditAccountWide,
		locale: requestLocale(request),
		page: {
			first: (page - 1) * PAGE_SIZE + 1,
			previous: page > 1 ? pageHref(page - 1) : null,
			next: page * PAGE_SIZE < total ? pageHref(page + 1) : null,
		},
		entries: entries.map((e) => ({
			id: e.id,
			value: e.value,
			kind: e.kind,
			reason: DNC_REASONS[e.reason as DncReason] ?? e.reason,
			scope: e.workspaceName ?? 'All workspaces',
			addedBy: e.addedBy,
			addedAt: e.createdAt.toISOString(),
			canRemove: e.canRemove,
			sync: syncStates.get(e.id) as EntrySyncView | undefined,
		})),
	}
}

export async function action({ request, context }: Route.ActionArgs) {
	const { account } = context.get(requestContext)
	dncAccount(account)
	if (request.headers.get('content-type')?.startsWith('multipart/form-data'))
		return importAction(request, account)
	const formData = await readFormData(request)
	if (formData.get('intent') === 'sync') return syncAction(account, formData)
	if (formData.get('intent') === 'remove') {
		const parsed = RemoveEntrySchema.safeParse(Object.fromEntries(formData))
		if (!parsed.success) throw data('Unknown action', { status: 400 })
		try {
			const removed = await removeEntry(account, parsed.data.id)
			return redirectWithSuccess('/do-not-contact', `${removed.value} removed`)
		} catch (error) {
			return redirectOnFormError(error, '/do-not-contact')
		}
	}
	const submission = parseWithZod(formData, { schema: AddEntrySchema })
	if (submission.status !== 'success')
		return data({ intent: 'add' as const, result: submission.reply() }, { status: 400 })
	try {
		const added = await addEntry(account, {
			...submission.value,
			confirmFreeMail: submission.value.confirmFreeMail === 'on',
		})
		await syncAfterChange(account)
		return redirectWithSuccess('/do-not-contact', `${added.value} added to do not contact`)
	} catch (error) {
		return formErrorReply(error, submission, { intent: 'add' as const })
	}
}

/** The CSV import: fields first, then the file streamed into the database (never buffered). */
async function importAction(request: Request, account: AccountContext | null) {
	const fieldsOf = (fields: Record<string, string>) => {
		const form = new FormData()
		for (const [k, v] of Object.entries(fields)) form.set(k, v)
		return parseWithZod(form, { schema: ImportEntriesSchema })
	}
	let submission = fieldsOf({})
	try {
		const { result } = await readEntriesUpload<DncImportOutcome | null>(
			request,
			async (fields, file) => {
				submission = fieldsOf(fields)
				if (submission.status !== 'success') {
					file.resume()
					return null
				}
				const { allowFreeMail, ...rest } = submission.value
				return importEntries(account, { ...rest, allowFreeMail: allowFreeMail === 'on' }, file)
			},
		)
		if (submission.status !== 'success')
			return data({ intent: 'import' as const, result: submission.reply() }, { status: 400 })
		if (!result)
			return data(
				{
					intent: 'import' as const,
					result: submission.reply({ fieldErrors: { file: ['Choose a CSV file'] } }),
				},
				{ status: 400 },
			)
		if (result.added > 0) await syncAfterChange(account)
		return data({ intent: 'import' as const, result: submission.reply(), outcome: result })
	} catch (error) {
		return formErrorReply(error, submission, { intent: 'import' as const })
	}
}

/** Start (or join) a sync with EmailBison; a double submit is one sync (its key). */
async function syncAction(account: AccountContext | null, formData: FormData) {
	const submission = parseWithZod(formData, { schema: SyncEntriesSchema })
	if (submission.status !== 'success')
		return data({ intent: 'sync' as const, result: submission.reply() }, { status: 400 })
	const { acting } = dncAccount(account)
	try {
		const started = await oncePerSubmission(
			{ accountId: acting.accountId, form: 'dnc-sync', formData },
			(trx) =>
				startDncSync(
					account,
					{
						workspaceId: submission.value.scope === 'all' ? null : submission.value.scope,
						pull: submission.value.pull === 'on',
					},
					trx,
				),
		)
		return redirectWithSuccess(
			`/do-not-contact?sync=${started.id}`,
			started.joined
				? 'A sync with EmailBison is already under way: it sends these too'
				: 'Sync with EmailBison started',
		)
	} catch (error) {
		return formErrorReply(error, submission, { intent: 'sync' as const })
	}
}

type Row = Route.ComponentProps['loaderData']['entries'][number]

export default function DoNotContact({ loaderData, actionData }: Route.ComponentProps) {
	const { entries, q, total, scopes, defaultScope, locale, sync } = loaderData
	useLiveRefresh(sync.run?.status === 'queued' || sync.run?.status === 'running', 2000)
	const columns = [
		{
			key: 'value',
			label: 'Email or domain',
			rowHeader: true,
			cell: (r: Row) => (
				<span className="font-medium">
					{r.value} <Badge tone={r.kind === 'domain' ? 'indigo' : 'slate'}>{r.kind}</Badge>
				</span>
			),
		},
		{ key: 'reason', label: 'Reason', cell: (r: Row) => r.reason },
		{ key: 'scope', label: 'Applies to', cell: (r: Row) => r.scope },
		{ key: 'emailbison', label: 'EmailBison', cell: (r: Row) => <EntrySyncBadge sync={r.sync} /> },
		{ key: 'added-by', label: 'Added by', cell: (r: Row) => r.addedBy ?? '—' },
		{
			key: 'added',
			label: 'Added',
			nowrap: true,
			cell: (r: Row) => <LocalTime value={r.addedAt} locale={locale} />,
		},
		{
			key: 'actions',
			label: 'Actions',
			srOnlyLabel: true,
			hideable: false,
			cell: (r: Row) =>
				r.canRemove ? (
					<Form method="post">
						<input type="hidden" name="intent" value="remove" />
						<input type="hidden" name="id" value={r.id} />
						<Button type="submit" variant="ghost" aria-label={`Remove ${r.value}`}>
							Remove
						</Button>
					</Form>
				) : (
					<span className="text-xs text-slate-500">Admins only</span>
				),
		},
	]
	return (
		<>
			<PageHeader
				title="Do not contact"
				icon={<ShieldBan />}
				description="Emails and whole domains nobody may email: suppressed in every list, never enriched, verified or uploaded."
				actions={
					<Link to="/do-not-contact/download" reloadDocument className={buttonClasses('secondary')}>
						Download CSV
					</Link>
				}
			/>
			<div className="space-y-6">
				{scopes.length ? (
					<div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
						<AddEntryForm
							scopes={scopes}
							defaultScope={defaultScope}
							lastResult={actionData?.intent === 'add' ? actionData.result : undefined}
						/>
						<ImportEntriesForm
							scopes={scopes}
							defaultScope={defaultScope}
							errors={actionData?.intent === 'import' ? actionData.result.error : undefined}
							outcome={
								actionData?.intent === 'import' && 'outcome' in actionData
									? ((actionData.outcome as DncImportOutcome | undefined) ?? null)
									: null
							}
						/>
					</div>
				) : null}
				<SyncPanel
					{...sync}
					locale={locale}
					errors={
						actionData?.intent === 'sync' ? (actionData.result.error?.[''] ?? undefined) : undefined
					}
				/>
				<Card>
					<Form method="get" className="mb-4 flex gap-2" role="search">
						<label htmlFor="dnc-q" className="sr-only">
							Search
						</label>
						<input
							id="dnc-q"
							name="q"
							type="search"
							defaultValue={q}
							placeholder="Search emails and domains"
							className="block w-full rounded-md px-3 py-2 text-sm ring-1 ring-slate-300"
						/>
						<Button type="submit" variant="secondary">
							Search
						</Button>
					</Form>
					{entries.length === 0 ? (
						<p className="text-sm text-slate-600" data-testid="dnc-empty">
							{q ? 'Nothing matches this search.' : 'No entries yet.'}
						</p>
					) : (
						<DataTable
							label="Do-not-contact entries"
							columns={columns}
							rows={entries}
							rowKey={(r) => r.id}
							testId="dnc-table"
						/>
					)}
					<PageLinks
						label="Entries pages"
						statusTestId="dnc-page-status"
						first={loaderData.page.first}
						count={entries.length}
						total={total}
						previous={loaderData.page.previous}
						next={loaderData.page.next}
					/>
				</Card>
			</div>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Do not contact')
