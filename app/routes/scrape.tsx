import { data, Link } from 'react-router'
import { z } from 'zod'
import type { Route } from './+types/scrape'
import { isRunning } from '../components/lists/job-status.tsx'
import { ScrapeTable } from '../components/lists/scrape-table.tsx'
import { BulkProgress } from '../components/ui/bulk-progress.tsx'
import { buttonClasses } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { requestContext } from '../context.server.ts'
import { findBulkAction } from '../services/bulk/bulk-actions.server.ts'
import { listChains, listEnrichments } from '../services/enrichments/enrichments.server.ts'
import { newFormKey, oncePerSubmission } from '../services/idempotency/form-submissions.server.ts'
import { listsBulkForm } from '../services/lists/bulk-forms.server.ts'
import { listBulk } from '../services/lists/lists-bulk.server.ts'
import { tablePreferences } from '../services/tables/preferences.server.ts'
import { actingAccount } from '../services/workspaces/access.server.ts'
import {
	cancelScrape,
	deleteScrapeList,
	listScrapeLists,
	retryScrape,
	SCRAPE_SORTS,
} from '../services/leads/scrape-lists.server.ts'
import { redirectOnFormError } from '../utils/form-errors.server.ts'
import { requestLocale } from '../utils/locale.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { readSort } from '../utils/table-sort.ts'
import { useLiveRefresh } from '../utils/use-live-refresh.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

export async function loader({ request, context }: Route.LoaderArgs) {
	const { account, currentWorkspaceId } = context.get(requestContext)
	const acting = actingAccount(account)
	const url = new URL(request.url)
	const q = url.searchParams.get('q')?.slice(0, 200) ?? ''
	const sort = readSort(url.searchParams, SCRAPE_SORTS, { sort: 'created', dir: 'desc' })
	const bulkId = url.searchParams.get('bulk')
	const [lists, preferences, bulk, enrichments, chains] = await Promise.all([
		listScrapeLists(account, currentWorkspaceId, { q, sort }),
		tablePreferences(acting.user.id, 'scrape'),
		bulkId ? findBulkAction(acting, bulkId) : null,
		listEnrichments(acting),
		listChains(acting),
	])
	const workspaces = acting.workspaces
	url.searchParams.delete('bulk')
	return {
		q,
		sort,
		locale: requestLocale(request),
		preferences: { table: 'scrape', ...preferences },
		bulk: bulk ? { ...bulk, label: listBulk.actions[bulk.action]?.label ?? bulk.action } : null,
		closeBulk: `/scrape${url.search}`,
		workspaceId: currentWorkspaceId ?? 'none',
		workspaces,
		enrichTargets: [
			...enrichments.map((e) => ({
				value: `enrich:enrichment:${e.id}`,
				label: `Enrich: ${e.name}`,
			})),
			...chains.map((c) => ({ value: `enrich:chain:${c.id}`, label: `Enrich (chain): ${c.name}` })),
		],
		payWith: acting.apiKeyProviders.includes('openai') ? ('ownKey' as const) : ('credits' as const),
		// a list can move when there is a workspace it is not in
		lists: lists.map((list) => ({
			...list,
			canMove: workspaces.some((w) => w.id !== list.workspaceId),
		})),
		workspaceName: account?.workspaces.find((w) => w.id === currentWorkspaceId)?.name ?? null,
		// with workspaces, a list in none is labelled as such (it is not the workspace's)
		hasWorkspaces: workspaces.length > 0,
		formKey: newFormKey(),
	}
}

/** What the page lists, truthfully: a workspace's lists, and the unassigned ones when shown. */
function scopeDescription(workspaceName: string | null, unassigned: number) {
	if (!workspaceName) return 'Every lead and company list, with its progress.'
	if (unassigned === 0)
		return `The lead and company lists in ${workspaceName}, with their progress.`
	return `The lead and company lists in ${workspaceName}, and the account’s ${unassigned} unassigned list${unassigned === 1 ? '' : 's'} (in no workspace), with their progress.`
}

const ListActionSchema = z.object({
	intent: z.enum(['cancel', 'retry', 'delete']),
	kind: z.enum(['leads', 'companies']),
	listId: z.string(),
})

export async function action({ request, context }: Route.ActionArgs) {
	const { account } = context.get(requestContext)
	const formData = await readFormData(request)
	if (formData.get('intent') === 'bulk') return listsBulkForm(account, formData)
	const parsed = ListActionSchema.safeParse(Object.fromEntries(formData))
	if (!parsed.success) throw data('Unknown action', { status: 400 })
	const { intent, kind, listId } = parsed.data
	try {
		if (intent === 'cancel') {
			const list = await cancelScrape(account, kind, listId)
			return redirectWithSuccess(
				'/scrape',
				`“${list.name}” cancelled: what it found so far is kept and charged; the other credits are back`,
			)
		}
		if (intent === 'retry') {
			// sent twice: one new run, one hold
			const done = await oncePerSubmission(
				{ accountId: actingAccount(account).accountId, form: 'retry-scrape', formData },
				async (trx) => {
					const list = await retryScrape(account, kind, listId, trx)
					return { to: '/scrape', message: `“${list.name}” is running again` }
				},
			)
			return redirectWithSuccess(done.to, done.message)
		}
		const list = await deleteScrapeList(account, kind, listId)
		return redirectWithSuccess('/scrape', `“${list.name}” deleted`)
	} catch (error) {
		return redirectOnFormError(error, '/scrape')
	}
}

export default function Scrape({ loaderData, actionData }: Route.ComponentProps) {
	const { lists, workspaceName, hasWorkspaces, bulk, q } = loaderData
	const running = lists.some((l) => isRunning(l.status))
	useLiveRefresh(running, 2000)

	return (
		<>
			<PageHeader
				title="Scrape"
				description={scopeDescription(
					workspaceName,
					lists.filter((l) => l.workspaceId === null).length,
				)}
				actions={
					<div className="flex gap-2">
						<Link to="/create-leads" className={buttonClasses('primary')}>
							Create leads
						</Link>
						{running ? (
							<Link to="/scrape" reloadDocument className={buttonClasses('secondary')}>
								Refresh
							</Link>
						) : null}
					</div>
				}
			/>
			{bulk ? <BulkProgress bulk={bulk} closeTo={loaderData.closeBulk} /> : null}
			{lists.length === 0 && !q ? (
				<Card>
					<p className="text-slate-700">No lists yet.</p>
					<p className="mt-1 text-sm text-slate-600">
						Start with an Apollo search on{' '}
						<Link to="/create-leads" className="font-medium text-indigo-700 underline">
							Create leads
						</Link>
						.
					</p>
				</Card>
			) : (
				<ScrapeTable
					rows={lists}
					hasWorkspaces={hasWorkspaces}
					locale={loaderData.locale}
					sort={loaderData.sort}
					preferences={loaderData.preferences}
					q={q}
					workspaceId={loaderData.workspaceId}
					formKey={loaderData.formKey}
					workspaces={loaderData.workspaces}
					enrichTargets={loaderData.enrichTargets}
					payWith={loaderData.payWith}
					bulkResult={actionData && 'result' in actionData ? actionData.result : undefined}
				/>
			)}
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Scrape')
