import { useRef } from 'react'
import { data, Form, Link, useFetcher } from 'react-router'
import { DataTable } from '../components/ui/data-table.tsx'
import type { Route } from './+types/domains'
import {
	ImportDomainsForm,
	type ImportActionData,
} from '../components/domains/import-domains-form.tsx'
import { Button, buttonClasses } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { Badge } from '../components/ui/choice.tsx'
import { MoveToWorkspace } from '../components/workspaces/move-to-workspace.tsx'
import { requestContext } from '../context.server.ts'
import { domainAccount } from '../services/domains/access.server.ts'
import { listDomains, requestDnsCheck } from '../services/domains/domains.server.ts'
import { DomainRowActionSchema } from '../services/domains/schemas.ts'
import { canChangeDomains } from '../services/workspaces/access.server.ts'
import { redirectOnFormError } from '../utils/form-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { formatDate } from '../utils/money.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { useHydrated } from '../utils/use-hydrated.ts'
import { useLiveRefresh } from '../utils/use-live-refresh.ts'
import { readFormData } from '../utils/form-data.server.ts'

export async function loader({ context }: Route.LoaderArgs) {
	const { account, currentWorkspaceId } = context.get(requestContext)
	const acting = domainAccount(account, 'view')
	const domains = await listDomains(acting)
	return {
		canChange: canChangeDomains(acting),
		workspaceName: acting.workspaces.find((w) => w.id === currentWorkspaceId)?.name ?? null,
		domains: domains.map((d) => ({
			id: d.id,
			name: d.name,
			status: d.status,
			workspace: d.workspace_name,
			// moving needs a workspace the domain is not in
			canMove: acting.workspaces.some((w) => w.id !== d.workspace_id),
			subscribedUntil: d.subscribed_until ? formatDate(d.subscribed_until) : null,
			forwardTo: d.forward_to,
			redirectCode: d.redirect_code,
			dns: d.dns,
			checkedAt: d.dns_checked_at ? new Date(d.dns_checked_at).toISOString() : null,
		})),
	}
}

export async function action({ request, context }: Route.ActionArgs) {
	const { account } = context.get(requestContext)
	const parsed = DomainRowActionSchema.safeParse(Object.fromEntries(await readFormData(request)))
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
		throw data('Unknown action', { status: 400 })
	} catch (error) {
		return redirectOnFormError(error, '/domains')
	}
}

type Dns = NonNullable<Route.ComponentProps['loaderData']['domains'][number]['dns']>

function Check({ ok, label, detail }: { ok: boolean; label: string; detail?: string | null }) {
	return (
		<li className="flex items-center gap-1" title={detail ?? undefined}>
			<span aria-hidden className={ok ? 'text-green-700' : 'text-red-700'}>
				{ok ? '✓' : '✗'}
			</span>
			<span className="text-slate-700">
				{label}
				<span className="sr-only">{ok ? ' found' : ' missing'}</span>
			</span>
		</li>
	)
}

function DnsHealth({ dns, checkedAt }: { dns: Dns | null; checkedAt: string | null }) {
	if (!dns || (dns.pending && !checkedAt)) return <span className="text-slate-500">Checking…</span>
	return (
		<div>
			<ul className="flex flex-wrap gap-x-3 text-sm" aria-label="DNS records">
				<Check ok={(dns.mx?.length ?? 0) > 0} label="MX" detail={dns.mx?.join(', ')} />
				<Check ok={Boolean(dns.spf)} label="SPF" detail={dns.spf} />
				<Check ok={Boolean(dns.dmarc)} label="DMARC" detail={dns.dmarc} />
				<Check
					ok={Boolean(dns.forwarding?.ok)}
					label="Forwarding"
					detail={dns.forwarding?.found.join(', ')}
				/>
			</ul>
			{dns.errors?.length ? <p className="text-xs text-red-700">{dns.errors.join('; ')}</p> : null}
			{checkedAt ? (
				<p className="text-xs text-slate-500">
					Checked <time dateTime={checkedAt}>{new Date(checkedAt).toUTCString()}</time>
					{dns.pending ? ' · checking again…' : null}
				</p>
			) : null}
		</div>
	)
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

export default function Domains({ loaderData }: Route.ComponentProps) {
	const { domains, canChange, workspaceName } = loaderData
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
			{domains.length === 0 ? (
				<Card>
					<p className="text-sm text-slate-600" data-testid="domains-empty">
						No domains yet.{' '}
						{canChange ? 'Import the domains you send from to check their DNS.' : null}
					</p>
				</Card>
			) : (
				<DataTable
					label="Domains"
					caption
					style="plain"
					testId="domains"
					columns={[
						{ label: 'Domain' },
						{ label: 'Workspace' },
						{ label: 'Subscription' },
						{ label: 'Forwarding' },
						{ label: 'DNS health' },
						...(canChange ? [{ label: 'Actions', hidden: true }] : []),
					]}
				>
					{domains.map((d) => (
						<tr key={d.id} data-domain={d.name}>
							<th scope="row" className="px-4 py-3 text-left font-medium text-slate-900">
								{d.name}
								{d.status !== 'active' ? (
									<span className="ml-2">
										<Badge tone="amber">{d.status}</Badge>
									</span>
								) : null}
							</th>
							<td className="px-4 py-3 text-slate-700">{d.workspace ?? 'Unassigned'}</td>
							<td className="px-4 py-3 text-slate-700">
								{d.subscribedUntil ? `Until ${d.subscribedUntil}` : 'None'}
							</td>
							<td className="px-4 py-3 break-all text-slate-700">
								{d.forwardTo ? `${d.redirectCode} → ${d.forwardTo}` : '—'}
							</td>
							<td className="px-4 py-3">
								<DnsHealth dns={d.dns} checkedAt={d.checkedAt} />
							</td>
							{canChange ? (
								<td className="px-4 py-3 text-right">
									<div className="flex items-center justify-end gap-4">
										{d.canMove ? <MoveToWorkspace type="domain" id={d.id} name={d.name} /> : null}
										<Form method="post">
											<input type="hidden" name="id" value={d.id} />
											<Button type="submit" name="intent" value="check-dns" variant="secondary">
												Check DNS<span className="sr-only"> of {d.name}</span>
											</Button>
										</Form>
									</div>
								</td>
							) : null}
						</tr>
					))}
				</DataTable>
			)}
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Domains')
