import { sql } from 'kysely'
import type { SortDirection } from '../../utils/table-sort.ts'

/**
 * The order by health of a query over `domains` (the /domains table's Health column and the
 * whole-account view): ascending is the worst first (failing, needs attention, could not check,
 * healthy; the lowest score first within each), descending the best first; never-checked
 * domains last either way. Kept here, beside the table it reads, so the domains service sorts by
 * health without knowing how it is stored (and without importing this service's other modules).
 */
export function healthOrder(dir: SortDirection) {
	const rank = sql`(select h.status_rank from domain_health h where h.domain_id = domains.id and h.status is not null)`
	const score = sql`(select h.score from domain_health h where h.domain_id = domains.id)`
	const way = sql.raw(dir === 'asc' ? 'asc' : 'desc')
	return [sql`${rank} ${way} nulls last`, sql`${score} ${way} nulls last`]
}
