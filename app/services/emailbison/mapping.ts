import type { EbLeadJson } from '../../integrations/emailbison.server.ts'
import { csvSafe } from '../../utils/csv-safe.ts'
import type { EbField } from './schemas.ts'

// What a lead can send to EmailBison: its columns, and the enrichment outputs kept in
// leads.data (source `data:<key>`).

export const LEAD_COLUMNS = [
	['email', 'Email'],
	['first_name', 'First name'],
	['last_name', 'Last name'],
	['title', 'Title'],
	['company_name', 'Company'],
	['company_domain', 'Company domain'],
	['linkedin_url', 'LinkedIn URL'],
	['location', 'Location'],
	['phone', 'Phone'],
	['email_status', 'Email status'],
] as const

export type LeadColumn = (typeof LEAD_COLUMNS)[number][0]

export type UploadMapping = {
	fields: Partial<Record<EbField, string>>
	variables: { source: string; name: string }[]
}

export type SourceOption = { value: string; label: string }

export function sourceOptions(dataKeys: string[]): SourceOption[] {
	return [
		...LEAD_COLUMNS.map(([value, label]) => ({ value, label })),
		...dataKeys.map((key) => ({ value: `data:${key}`, label: `${key} (enrichment)` })),
	]
}

/** The mapping EmailBison's fields start with. */
export const DEFAULT_FIELDS: Record<EbField, string> = {
	email: 'email',
	first_name: 'first_name',
	last_name: 'last_name',
	title: 'title',
	company: 'company_name',
	notes: '',
}

/** Custom variable name suggested for a source: enrichment keys and a few columns. */
export function suggestedVariable(source: string) {
	const name = source
		.replace(/^data:/, '')
		.toLowerCase()
		.replace(/[^a-z0-9_]+/g, '_')
	const clean = name.replace(/^[^a-z]+/, '').slice(0, 63)
	return clean
}

export type LeadRow = Record<LeadColumn, string | null> & {
	data: unknown
	/** our verification status (issue 35), sent as a custom variable */
	verify_status?: string | null
}

export function valueOf(lead: LeadRow, source: string | undefined): string {
	if (!source) return ''
	if (source === 'verify_status') return lead.verify_status ?? 'not verified'
	if (source.startsWith('data:')) {
		const data = (lead.data && typeof lead.data === 'object' ? lead.data : {}) as Record<
			string,
			unknown
		>
		const value = data[source.slice(5)]
		if (value === null || value === undefined) return ''
		return typeof value === 'string' ? value : JSON.stringify(value)
	}
	const value = lead[source as LeadColumn]
	return value === null || value === undefined ? '' : String(value)
}

/** One lead as EmailBison's create-or-update body wants it. */
export function toEmailBisonLead(lead: LeadRow, mapping: UploadMapping) {
	const get = (field: EbField) => valueOf(lead, mapping.fields[field]).trim()
	const out: Record<string, unknown> = {
		email: get('email'),
		first_name: get('first_name'),
		last_name: get('last_name'),
	}
	for (const field of ['title', 'company', 'notes'] as const) {
		const value = get(field)
		if (value) out[field] = value
	}
	const variables = mapping.variables
		.map((v) => ({ name: v.name, value: valueOf(lead, v.source).trim() }))
		.filter((v) => v.value !== '')
	if (variables.length) out.custom_variables = variables
	return out as {
		email: string
		first_name: string
		last_name: string
		custom_variables?: { name: string; value: string }[]
	}
}

const quote = JSON.stringify

/**
 * The same lead as `JSON.stringify(toEmailBisonLead(lead, mapping))`, written straight into
 * the string: no object per lead and no walk of one by JSON.stringify (the upload sends
 * 100,000s of them, 500 a call, and this work sits between the calls).
 */
export function emailBisonLeadJson(lead: LeadRow, mapping: UploadMapping): EbLeadJson {
	const { fields } = mapping
	let json = `{"email":${quote(valueOf(lead, fields.email).trim())},"first_name":${quote(
		valueOf(lead, fields.first_name).trim(),
	)},"last_name":${quote(valueOf(lead, fields.last_name).trim())}`
	const title = valueOf(lead, fields.title).trim()
	if (title) json += `,"title":${quote(title)}`
	const company = valueOf(lead, fields.company).trim()
	if (company) json += `,"company":${quote(company)}`
	const notes = valueOf(lead, fields.notes).trim()
	if (notes) json += `,"notes":${quote(notes)}`
	let variables = ''
	for (const variable of mapping.variables) {
		const value = valueOf(lead, variable.source).trim()
		if (value === '') continue
		variables += `${variables ? ',' : ''}{"name":${quote(variable.name)},"value":${quote(value)}}`
	}
	if (variables) json += `,"custom_variables":[${variables}]`
	return `${json}}` as EbLeadJson
}

/** A CSV cell: quoted when needed, and formula-safe (csv-safe.ts). */
export function csvCell(value: unknown) {
	const text = csvSafe(value === null || value === undefined ? '' : String(value))
	return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}
