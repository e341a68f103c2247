import { Link } from 'react-router'
import type { ListCostBreakdown } from '../../services/billing/credit-history.server.ts'

const credits = (n: number) => `${n.toLocaleString('en')} ${n === 1 ? 'credit' : 'credits'}`

/**
 * What the list cost in credits: its search and each enrichment run on it (each linked to the
 * run), net of what came back. Nothing when it cost nothing (an upload, own keys).
 */
export function ListCost({ cost }: { cost: ListCostBreakdown }) {
	if (cost.total === 0 && cost.runs.length === 0) return null
	return (
		<details className="mb-4 text-sm text-slate-700" data-testid="list-cost">
			<summary className="cursor-pointer">
				Cost so far: <span className="font-semibold text-slate-900">{credits(cost.total)}</span>
			</summary>
			<ul className="mt-2 space-y-1 pl-4">
				{cost.search !== 0 ? <li>Search: {credits(cost.search)}</li> : null}
				{cost.verification !== 0 ? <li>Email verification: {credits(cost.verification)}</li> : null}
				{cost.runs.map((run) => (
					<li key={run.id} data-testid="run-cost">
						<Link to={run.href} className="text-indigo-700 hover:underline">
							Enrichment “{run.name}”
						</Link>
						: {credits(run.credits)}
					</li>
				))}
			</ul>
			<p className="mt-2 text-slate-600">
				Every line is in the{' '}
				<Link to="/purchase" className="text-indigo-700 underline">
					credit history
				</Link>
				.
			</p>
		</details>
	)
}
