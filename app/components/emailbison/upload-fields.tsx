import type { SourceOption } from '../../services/emailbison/mapping.ts'
import { DEFAULT_FIELDS } from '../../services/emailbison/mapping.ts'
import type { preflightCounts } from '../../services/emailbison/preflight.server.ts'
import { type EB_FIELDS, REQUIRED_FIELDS } from '../../services/emailbison/schemas.ts'

// The EmailBison fields of /lists/:listId/upload: their labels, and the warnings of the
// required ones the chosen sources leave empty.

export const FIELD_LABELS: Record<(typeof EB_FIELDS)[number], string> = {
	email: 'Email',
	first_name: 'First name',
	last_name: 'Last name',
	title: 'Title',
	company: 'Company',
	notes: 'Notes',
}

export const isRequired = (field: string): field is (typeof REQUIRED_FIELDS)[number] =>
	(REQUIRED_FIELDS as readonly string[]).includes(field)

/** Sources offered as custom variables: what the standard fields do not take by default. */
export function variableSources(options: SourceOption[]) {
	const taken = new Set(Object.values(DEFAULT_FIELDS))
	return options.filter((o) => !taken.has(o.value))
}

type PreflightCounts = Awaited<ReturnType<typeof preflightCounts>>

/**
 * The pre-flight warning of a field EmailBison requires: how many leads the chosen source
 * leaves empty (EmailBison rejects them), or that the field is not sent at all.
 */
export function PreflightWarning({
	field,
	source,
	preflight,
}: {
	field: (typeof REQUIRED_FIELDS)[number]
	source: string
	preflight: PreflightCounts
}) {
	const total = preflight.leads
	const label = FIELD_LABELS[field]
	let text: string | null = null
	if (total === 0) return null
	if (!source)
		text = `${label} is not sent: EmailBison requires it and will reject all ${total.toLocaleString('en')} leads.`
	else {
		const empty = preflight.empty[source] ?? 0
		if (empty > 0)
			text = `${empty.toLocaleString('en')} of ${total.toLocaleString('en')}${preflight.partial ? ' counted' : ''} leads have no ${label.toLowerCase()} here: EmailBison will reject them.`
	}
	if (!text) return null
	return (
		<p className="mt-1 text-sm text-amber-800" role="status" data-testid={`preflight-${field}`}>
			{text}
		</p>
	)
}
