import { BookOpen } from 'lucide-react'
import type { Route } from './+types/developers-api'
import { DevelopersNav } from '../components/developers/developers-nav.tsx'
import { Badge } from '../components/ui/badge.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { requestContext } from '../context.server.ts'
import { openApiDocument } from '../services/api/document.server.ts'
import { actingAccount } from '../services/workspaces/access.server.ts'
import { pageTitle } from '../utils/meta.ts'

// The API reference, rendered on the server from the OpenAPI document (no script of its own:
// a reference bundle such as Scalar's would weigh more than every other page's script together).

type Operation = {
	operationId: string
	summary: string
	description?: string
	'x-scope': string
	parameters?: { name: string; in: string; required: boolean; description?: string }[]
	requestBody?: { content: Record<string, { schema: unknown }> }
	'x-codeSamples': { source: string }[]
}

export function loader({ context }: Route.LoaderArgs) {
	actingAccount(context.get(requestContext).account)
	const document = openApiDocument() as {
		servers: { url: string }[]
		paths: Record<string, Record<string, Operation>>
	}
	const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
		Object.entries(methods).map(([method, operation]) => ({
			method: method.toUpperCase(),
			path,
			id: operation.operationId,
			summary: operation.summary,
			description: operation.description ?? null,
			scope: operation['x-scope'],
			parameters: (operation.parameters ?? []).map((p) => ({
				name: p.name,
				in: p.in,
				required: p.required,
				description: p.description ?? null,
			})),
			body: operation.requestBody
				? JSON.stringify(Object.values(operation.requestBody.content)[0]?.schema, null, 2)
				: null,
			curl: operation['x-codeSamples'][0]?.source ?? '',
		})),
	)
	return { baseUrl: document.servers[0]?.url ?? '', operations }
}

export default function DevelopersApi({ loaderData }: Route.ComponentProps) {
	const { baseUrl, operations } = loaderData
	return (
		<>
			<PageHeader
				title="Developers"
				icon={<BookOpen />}
				description={
					<>
						Base URL <code>{baseUrl}</code>. The OpenAPI 3.1 document:{' '}
						<a className="font-semibold text-indigo-700 underline" href="/api/v1/openapi.json">
							/api/v1/openapi.json
						</a>
					</>
				}
			/>
			<DevelopersNav />
			<div className="grid max-w-4xl grid-cols-1 gap-4">
				<Card>
					<h2 className="text-lg font-semibold">Conventions</h2>
					<ul className="mt-2 list-disc space-y-1 pl-5 text-sm text-slate-700">
						<li>
							<code>Authorization: Bearer ls_live_…</code> on every request; sessions are not
							accepted.
						</li>
						<li>
							Lists page with <code>limit</code> (1 to 100) and <code>starting_after</code> (the
							previous page’s <code>next_cursor</code>).
						</li>
						<li>
							<code>Idempotency-Key</code> on a POST: a repeat within 24 h gets the first answer;
							the same key with another body is 422.
						</li>
						<li>
							Errors are <code>application/problem+json</code> with a <code>code</code> and the{' '}
							<code>field</code>; past the rate limit, 429 with <code>Retry-After</code>.
						</li>
					</ul>
				</Card>
				{operations.map((operation) => (
					<Card key={operation.id}>
						<h2
							className="flex flex-wrap items-center gap-2 text-base font-semibold"
							id={operation.id}
						>
							<Badge tone={operation.method === 'GET' ? 'indigo' : 'amber'}>
								{operation.method}
							</Badge>
							<code className="break-all">{operation.path}</code>
							<span className="text-slate-600">{operation.summary}</span>
						</h2>
						{operation.description ? (
							<p className="mt-1 text-sm text-slate-700">{operation.description}</p>
						) : null}
						<p className="mt-1 text-sm text-slate-600">
							Scope <code>{operation.scope}</code>
						</p>
						{operation.parameters.length ? (
							<ul className="mt-2 space-y-1 text-sm">
								{operation.parameters.map((p) => (
									<li key={`${p.in}-${p.name}`}>
										<code>{p.name}</code> <span className="text-slate-500">({p.in}</span>
										<span className="text-slate-500">{p.required ? ', required)' : ')'}</span>
										{p.description ? ` ${p.description}` : ''}
									</li>
								))}
							</ul>
						) : null}
						{operation.body ? (
							<details className="mt-2 text-sm">
								<summary className="cursor-pointer font-semibold text-indigo-700">
									Request body
								</summary>
								{/* a scrolling region reachable by keyboard */}
								<pre tabIndex={0} className="mt-2 overflow-x-auto rounded bg-slate-50 p-3 text-xs">
									{operation.body}
								</pre>
							</details>
						) : null}
						<pre
							tabIndex={0}
							className="mt-3 overflow-x-auto rounded bg-slate-900 p-3 text-xs text-slate-100"
						>
							{operation.curl}
						</pre>
					</Card>
				))}
			</div>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'API reference')
