import { useRef } from 'react'
import { data, Form, Link, useFetcher } from 'react-router'
import type { Route } from './+types/domains'
import {
	DOMAIN_COLUMNS_HIDDEN_AT_FIRST,
	DomainsTable,
	type DomainRow,
} from '../components/domains/domains-table.tsx'
import {
	ImportDomainsForm,
	type ImportActionData,
} from '../components/domains/import-domains-form.tsx'
import { BulkProgress } from '../components/ui/bulk-progress.tsx'
import { Button, buttonClasses } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { requestContext, type AccountContext } from '../context.server.ts'
import { startBulkAction, findBulkAction } from '../services/bulk/bulk-actions.server.ts'
import { bulkSelection } from '../services/bulk/schemas.ts'
import { domainAccount } from '../services/domains/access.server.ts'
import { healthOf } from '../services/domain-health/health.server.ts'
import { domainBulk } from '../services/domains/bulk.server.ts'
import { deleteDomain } from '../services/domains/delete.server.ts'
import {
	countDomains,
	DOMAIN_SORTS,
	listDomains,
	requestDnsCheck,
	unicodeName,
} from '../services/domains/domains.server.ts'
import { DomainBulkSchema, DomainRowActionSchema } from '../services/domains/schemas.ts'
import { newFormKey, oncePerSubmission } from '../services/idempotency/form-submissions.server.ts'
import { tablePreferences } from '../services/tables/preferences.server.ts'
import { canChangeDomains } from '../services/workspaces/access.server.ts'
import { parseWithZod } from '../utils/form-bounds.ts'
import { formErrorReply, redirectOnFormError } from '../utils/form-errors.server.ts'
import { requestLocale } from '../utils/locale.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { readSort } from '../utils/table-sort.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { useHydrated } from '../utils/use-hydrated.ts'
import { useLiveRefresh } from '../utils/use-live-refresh.ts'
import { readFormData } from '../utils/form-data.server.ts'

const PAGE_SIZE = 100

export async function loader({ request, context }: Route.LoaderArgs) {
	const { account, currentWorkspaceId } = context.get(requestContext)
	const acting = domainAccount(account, 'view')
	const url = new URL(request.url)
	const q = url.searchParams.get('q')?.slice(0, 200) ?? ''
	const sort = readSort(url.searchParams, DOMAIN_SORTS, { sort: 'added', dir: 'desc' })
	const page = Math.max(1, Number.parseInt(url.searchParams.get('page') ?? '1', 10) || 1)
	const [domains, matching, preferences, bulk] = await Promise.all([
		listDomains(acting, undefined, {
			q,
			sort,
			limit: PAGE_SIZE,
			offset: (page - 1) * PAGE_SIZE,
		}),
		countDomains(acting, q),
		tablePreferences(acting.user.id, 'domains', undefined, {
			// until the user chooses: the table fits beside its sticky actions at 1280 px
			hiddenColumns: DOMAIN_COLUMNS_HIDDEN_AT_FIRST,
		}),
		url.searchParams.get('bulk')
			? findBulkAction(acting, url.searchParams.get('bulk'))
			: Promise.resolve(null),
	])
	const health = await healthOf(
		acting,
		domains.map((d) => d.id),
	)
	const pageHref = (n: number) => {
		const params = new URLSearchParams(url.searchParams)
		params.set('page', String(n))
		params.delete('bulk')
		return `/domains?${params}`
	}
	const withoutBulk = new URLSearchParams(url.searchParams)
	withoutBulk.delete('bulk')
	return {
		canChange: canChangeDomains(acting),
		workspaceName: acting.workspaces.find((w) => w.id === currentWorkspaceId)?.name ?? null,
		workspaces: acting.workspaces,
		locale: requestLocale(request),
		q,
		sort,
		matching,
		page: {
			first: (page - 1) * PAGE_SIZE + 1,
			previous: page > 1 ? pageHref(page - 1) : null,
			next: page * PAGE_SIZE < matching ? pageHref(page + 1) : null,
		},
		preferences: { table: 'domains', ...preferences },
		formKey: newFormKey(),
		bulk: bulk ? { ...bulk, label: domainBulk.actions[bulk.action]?.label ?? bulk.action } : null,
		closeBulk: `/domains${withoutBulk.size ? `?${withoutBulk}` : ''}`,
		domains: domains.map((d): DomainRow => ({
			id: d.id,
			name: d.name,
			display: unicodeName(d.name),
			status: d.status,
			workspace: d.workspace_name,
			// moving needs a workspace the domain is not in
			canMove: acting.workspaces.some((w) => w.id !== d.workspace_id),
			subscribedUntil: d.subscribed_until ? new Date(d.subscribed_until).toISOString() : null,
			forwardTo: d.forward_to,
			redirectCode: d.redirect_code,
			dns: d.dns,
			checkedAt: d.dns_checked_at ? new Date(d.dns_checked_at).toISOString() : null,
			addedAt: new Date(d.created_at).toISOString(),
			health: health.get(d.id),
		})),
	}
}

export async function action({ request, context }: Route.ActionArgs) {
	const { account } = context.get(requestContext)
	const formData = await readFormData(request)
	if (formData.get('intent') === 'bulk') return bulkAction(account, formData)
	const parsed = DomainRowActionSchema.safeParse(Object.fromEntries(formData))
	if (!parsed.success) throw data('Unknown action', { status: 400 })
	try {
		if (parsed.data.intent === 'check-all') {
			const count = await requestDnsCheck(account, 'all')
			return redirectWithSuccess('/domains', `Checking DNS of ${count} domains`)
		}
		if (parsed.data.intent === 'check-dns') {
			await requestDnsCheck(account, [parsed.data.id ?? ''])
			return redirectWithSuccess('/domains', 'Checking DNS')
		}
		if (parsed.data.intent === 'delete') {
			const domain = await deleteDomain(account, parsed.data.id ?? '')
			return redirectWithSuccess('/domains', `${unicodeName(domain.name)} deleted`)
		}
		throw data('Unknown action', { status: 400 })
	} catch (error) {
		return redirectOnFormError(error, '/domains')
	}
}

/** The bulk form: one job per intent (a double submit starts one), its progress on the page. */
async function bulkAction(account: AccountContext | null, formData: FormData) {
	const acting = domainAccount(account, 'change')
	const submission = parseWithZod(formData, { schema: DomainBulkSchema })
	if (submission.status !== 'success') {
		return data({ result: submission.reply() }, { status: 400 })
	}
	const [action, workspaceId] = submission.value.action.split(':') as [string, string?]
	try {
		const started = await oncePerSubmission(
			{ accountId: acting.accountId, form: 'domains-bulk', formData },
			(trx) =>
				startBulkAction(
					acting,
					domainBulk,
					{
						action,
						params: workspaceId ? { workspaceId } : {},
						selection: bulkSelection(submission.value),
					},
					trx,
				),
		)
		return redirectWithSuccess(
			`/domains?bulk=${started.id}`,
			`${started.label}: ${started.total} domain${started.total === 1 ? '' : 's'} queued`,
		)
	} catch (error) {
		return formErrorReply(error, submission)
	}
}

function ImportDialog({ workspaceName }: { workspaceName: string | null }) {
	const ref = useRef<HTMLDialogElement>(null)
	const fetcher = useFetcher<ImportActionData>()
	return (
		<>
			<Button type="button" onClick={() => ref.current?.showModal()}>
				Import domains
			</Button>
			<dialog
				ref={ref}
				aria-labelledby="import-dialog-title"
				className="m-auto w-full max-w-2xl rounded-lg p-0 shadow-xl backdrop:bg-slate-900/50"
			>
				<div className="p-6">
					<div className="mb-4 flex items-center justify-between">
						<h2 id="import-dialog-title" className="text-lg font-semibold text-slate-900">
							Import domains
						</h2>
						<Button type="button" variant="ghost" onClick={() => ref.current?.close()}>
							Close
						</Button>
					</div>
					<ImportDomainsForm workspaceName={workspaceName} fetcher={fetcher} />
				</div>
			</dialog>
		</>
	)
}

export default function Domains({ loaderData, actionData }: Route.ComponentProps) {
	const { domains, canChange, workspaceName, bulk, q } = loaderData
	const hydrated = useHydrated()
	// the DNS answers show as they come in
	useLiveRefresh(
		domains.some((d) => d.dns?.pending),
		2000,
	)
	return (
		<>
			<PageHeader
				title="Domains"
				description="Sending domains: their DNS health, subscription and forwarding."
				actions={
					canChange ? (
						<div className="flex gap-2">
							<Link to="/domains/health" className={buttonClasses('secondary')}>
								Domain health
							</Link>
							{domains.length ? (
								<Form method="post">
									<Button type="submit" name="intent" value="check-all" variant="secondary">
										Check all DNS
									</Button>
								</Form>
							) : null}
							{hydrated ? (
								<ImportDialog workspaceName={workspaceName} />
							) : (
								<Link to="/domains/import" className={buttonClasses()}>
									Import domains
								</Link>
							)}
						</div>
					) : null
				}
			/>
			{bulk ? <BulkProgress bulk={bulk} closeTo={loaderData.closeBulk} /> : null}
			{domains.length === 0 && !q ? (
				<Card>
					<p className="text-sm text-slate-600" data-testid="domains-empty">
						No domains yet.{' '}
						{canChange ? 'Import the domains you send from to check their DNS.' : null}
					</p>
				</Card>
			) : (
				<DomainsTable
					rows={domains}
					canChange={canChange}
					locale={loaderData.locale}
					sort={loaderData.sort}
					preferences={loaderData.preferences}
					q={q}
					matching={loaderData.matching}
					page={loaderData.page}
					formKey={loaderData.formKey}
					workspaces={loaderData.workspaces}
					bulkResult={actionData?.result}
				/>
			)}
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Domains')
