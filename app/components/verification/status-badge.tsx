import { Badge } from '../ui/badge.tsx'
import { isStatusFilter, STATUS_INFO } from '../../services/verification/statuses.ts'

/**
 * A lead's email status: our own check (valid, catch-all, …, with "role" for info@-style
 * addresses), or, never checked by us, what an imported file said, marked "imported".
 */
export function EmailStatusBadge({
	status,
	role,
	imported,
}: {
	status: string | null
	role?: boolean | null
	imported?: string | null
}) {
	if (status && isStatusFilter(status)) {
		const info = STATUS_INFO[status]
		return (
			<span className="inline-flex gap-1" title={info.meaning}>
				<Badge tone={info.tone}>{info.label}</Badge>
				{role ? <Badge>Role</Badge> : null}
			</span>
		)
	}
	if (imported)
		return (
			<span title="From the imported file: not checked by Leadsmith">
				<Badge className="italic">{imported} (imported)</Badge>
			</span>
		)
	return null
}
