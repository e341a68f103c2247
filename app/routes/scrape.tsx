import { data, Form, Link } from 'react-router'
import { z } from 'zod'
import type { Route } from './+types/scrape'
import {
	isCancelled,
	isRunning,
	JobStatusBadge,
	ProgressBar,
} from '../components/lists/job-status.tsx'
import { IdempotencyKey } from '../components/idempotency-key.tsx'
import { ConfirmAction, ConfirmDelete } from '../components/lists/confirm-delete.tsx'
import { Badge } from '../components/ui/choice.tsx'
import { MoveToWorkspace } from '../components/workspaces/move-to-workspace.tsx'
import { buttonClasses } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { requestContext } from '../context.server.ts'
import { newFormKey, oncePerSubmission } from '../services/idempotency/form-submissions.server.ts'
import { actingAccount } from '../services/workspaces/access.server.ts'
import {
	cancelScrape,
	deleteScrapeList,
	listScrapeLists,
	retryScrape,
} from '../services/leads/scrape-lists.server.ts'
import { redirectOnFormError } from '../utils/form-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { useLiveRefresh } from '../utils/use-live-refresh.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'
import { ScrollRegion } from '../components/ui/scroll-region.tsx'

export async function loader({ context }: Route.LoaderArgs) {
	const { account, currentWorkspaceId } = context.get(requestContext)
	const lists = await listScrapeLists(account, currentWorkspaceId)
	const workspaces = account?.workspaces ?? []
	return {
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

function ActionButton({
	intent,
	kind,
	listId,
	label,
	danger,
	formKey,
}: {
	formKey?: string
	intent: string
	kind: string
	listId: string
	label: string
	danger?: boolean
}) {
	return (
		<Form method="post">
			<input type="hidden" name="intent" value={intent} />
			<input type="hidden" name="kind" value={kind} />
			<input type="hidden" name="listId" value={listId} />
			{formKey ? <IdempotencyKey value={formKey} /> : null}
			<button
				type="submit"
				className={`text-sm font-medium hover:underline ${danger ? 'text-red-700' : 'text-indigo-700'}`}
			>
				{label}
			</button>
		</Form>
	)
}

export default function Scrape({ loaderData }: Route.ComponentProps) {
	const { lists, workspaceName, hasWorkspaces } = loaderData
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
			{lists.length === 0 ? (
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
				<ScrollRegion
					className="rounded-lg bg-white shadow-sm ring-1 ring-slate-200"
					label="Scrapes"
				>
					<table className="min-w-full divide-y divide-slate-200 text-sm">
						<thead className="bg-slate-50 text-left text-xs font-semibold tracking-wide text-slate-600 uppercase">
							<tr>
								<th scope="col" className="px-4 py-3">
									List
								</th>
								<th scope="col" className="px-4 py-3">
									Status
								</th>
								<th scope="col" className="px-4 py-3">
									Progress
								</th>
								<th scope="col" className="px-4 py-3 text-right">
									Requested
								</th>
								<th scope="col" className="px-4 py-3 text-right">
									Found
								</th>
								<th scope="col" className="px-4 py-3">
									Created
								</th>
								<th scope="col" className="px-4 py-3">
									Actions
								</th>
							</tr>
						</thead>
						<tbody className="divide-y divide-slate-100 bg-white">
							{lists.map((list) => (
								<tr key={list.id} id={`list-${list.id}`} data-testid="scrape-row">
									<td className="px-4 py-3">
										<Link
											to={list.kind === 'leads' ? `/lists/${list.id}` : `/company-lists/${list.id}`}
											className="font-medium text-indigo-700 hover:underline"
										>
											{list.name}
										</Link>
										{hasWorkspaces && list.workspaceId === null ? (
											<span className="ml-2" data-testid="unassigned">
												<Badge>Unassigned</Badge>
											</span>
										) : null}
										<span className="block text-xs text-slate-500">
											{list.kind === 'leads' ? 'Leads' : 'Companies'} · {list.source}
										</span>
										{list.error && !isCancelled(list.status, list.error) ? (
											<span className="mt-1 block text-xs text-red-700">{list.error}</span>
										) : null}
									</td>
									<td className="px-4 py-3">
										<JobStatusBadge status={list.status} error={list.error} />
									</td>
									<td className="px-4 py-3">
										<ProgressBar value={list.progress} label={`Progress of ${list.name}`} />
									</td>
									<td className="px-4 py-3 text-right tabular-nums">
										{list.requested.toLocaleString('en')}
									</td>
									<td className="px-4 py-3 text-right tabular-nums" data-testid="found">
										{list.found.toLocaleString('en')}
									</td>
									<td className="px-4 py-3 whitespace-nowrap text-slate-600">
										{new Date(list.createdAt).toLocaleString('en', {
											dateStyle: 'medium',
											timeStyle: 'short',
										})}
									</td>
									<td className="px-4 py-3">
										<div className="flex flex-wrap gap-x-3 gap-y-1">
											{list.status === 2 ? (
												<a
													href={`/lists/${list.id}/download?kind=${list.kind}`}
													className="text-sm font-medium text-indigo-700 hover:underline"
												>
													Download CSV
												</a>
											) : null}
											{isRunning(list.status) ? (
												<ConfirmAction
													label="Cancel"
													name={list.name}
													confirmLabel={`Stop “${list.name}”`}
													consequence={`The search stops now: the ${list.kind === 'leads' ? 'leads' : 'companies'} found so far are kept and charged, the credits for the rest come back.`}
													fields={{ intent: 'cancel', kind: list.kind, listId: list.id }}
												/>
											) : null}
											{list.status === 3 ? (
												<ActionButton
													intent="retry"
													formKey={loaderData.formKey}
													kind={list.kind}
													listId={list.id}
													label="Retry"
												/>
											) : null}
											{list.canMove ? (
												<MoveToWorkspace
													type={list.kind === 'leads' ? 'list' : 'company-list'}
													id={list.id}
													name={list.name}
												/>
											) : null}
											<ConfirmDelete
												name={list.name}
												consequence={`“${list.name}” is deleted with its ${list.found.toLocaleString('en')} ${list.kind === 'leads' ? 'leads' : 'companies'}.`}
												fields={{ intent: 'delete', kind: list.kind, listId: list.id }}
											/>
										</div>
									</td>
								</tr>
							))}
						</tbody>
					</table>
				</ScrollRegion>
			)}
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Scrape')
