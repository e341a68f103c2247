// Prompts with {{column}} placeholders, rendered per lead. Shared by the server and the
// form (the enrichment form lists the columns a prompt may use).

/** Lead columns a prompt may name (full_name is first and last name together). */
export const LEAD_COLUMNS = [
	'email',
	'first_name',
	'last_name',
	'full_name',
	'title',
	'company_name',
	'company_domain',
	'linkedin_url',
	'location',
	'phone',
	'email_status',
] as const

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g

/** The placeholder names of a prompt, in order, without repeats. */
export function placeholders(prompt: string) {
	return [...new Set([...prompt.matchAll(PLACEHOLDER)].map((m) => m[1]!))]
}

export type LeadRow = {
	id: string
	email: string
	first_name: string | null
	last_name: string | null
	title: string | null
	company_name: string | null
	company_domain: string | null
	linkedin_url: string | null
	location: string | null
	phone: string | null
	email_status: string | null
	data: Record<string, unknown>
}

/** Company columns a prompt may name when it runs on a company list. */
export const COMPANY_COLUMNS = [
	'name',
	'domain',
	'industry',
	'employees',
	'location',
	'linkedin_url',
	'description',
] as const

export type CompanyRow = {
	id: string
	name: string | null
	domain: string | null
	industry: string | null
	employees: number | null
	location: string | null
	linkedin_url: string | null
	description: string | null
	data: Record<string, unknown>
}

/** A row a run enriches: a lead, or a company of a company list. */
export type RunRow = LeadRow | CompanyRow

/** The columns of a row kind (leads unless told). */
export type RowColumns = readonly string[]

/**
 * A column's value for a row: one of its columns (lead columns unless `columns` says
 * otherwise), a key of its data, or `output.field` of a JSON output.
 */
export function columnValue(
	row: RunRow,
	column: string,
	columns: RowColumns = LEAD_COLUMNS,
): unknown {
	if (column === 'full_name' && columns === LEAD_COLUMNS) {
		const lead = row as LeadRow
		return [lead.first_name, lead.last_name].filter(Boolean).join(' ') || null
	}
	if (columns.includes(column)) return (row as Record<string, unknown>)[column]
	if (Object.hasOwn(row.data, column)) return row.data[column]
	const dot = column.indexOf('.')
	if (dot > 0) {
		const parent = row.data[column.slice(0, dot)]
		if (parent && typeof parent === 'object')
			return (parent as Record<string, unknown>)[column.slice(dot + 1)]
	}
	return undefined
}

export function isEmptyValue(value: unknown): boolean {
	if (value === null || value === undefined) return true
	if (typeof value === 'string') return value.trim() === ''
	if (typeof value === 'object')
		return Object.values(value as object).every((v) => isEmptyValue(v) || v === false || v === 0)
	return false
}

function asText(value: unknown) {
	if (value === null || value === undefined) return ''
	if (typeof value === 'object') return JSON.stringify(value)
	return String(value)
}

/** The prompt with every placeholder replaced by the row's value (empty when it has none). */
export function renderPrompt(prompt: string, row: RunRow, columns: RowColumns = LEAD_COLUMNS) {
	return prompt.replace(PLACEHOLDER, (_, name: string) =>
		asText(columnValue(row, name.trim(), columns)),
	)
}

export type Condition = {
	column: string
	op: 'empty' | 'not-empty' | 'equals' | 'contains'
	value?: string
}

export const CONDITION_LABELS: Record<Condition['op'], string> = {
	empty: 'is empty',
	'not-empty': 'is not empty',
	equals: 'equals',
	contains: 'contains',
}

/** "Run only if": a step without a condition always runs. */
export function conditionHolds(
	condition: Condition | null | undefined,
	row: RunRow,
	columns: RowColumns = LEAD_COLUMNS,
) {
	if (!condition) return true
	const value = columnValue(row, condition.column, columns)
	switch (condition.op) {
		case 'empty':
			return isEmptyValue(value)
		case 'not-empty':
			return !isEmptyValue(value)
		case 'equals':
			return asText(value).trim().toLowerCase() === (condition.value ?? '').trim().toLowerCase()
		case 'contains':
			return asText(value)
				.toLowerCase()
				.includes((condition.value ?? '').trim().toLowerCase())
	}
}

function ascii(value: string) {
	return value
		.normalize('NFKD')
		.replace(/[\u0300-\u036f]/g, '')
		.toLowerCase()
		.replace(/[^a-z0-9]/g, '')
}

/** Built-in step: first.last@domain from the name and the company domain, or null. */
export function guessEmail(row: LeadRow, domain: unknown) {
	const first = ascii(row.first_name ?? '')
	const last = ascii(row.last_name ?? '')
	const host =
		typeof domain === 'string'
			? domain
					.trim()
					.toLowerCase()
					.replace(/^www\./, '')
			: ''
	if (!first || !host || !/^[a-z0-9.-]+\.[a-z]{2,}$/.test(host)) return null
	return last ? `${first}.${last}@${host}` : `${first}@${host}`
}

const COMPANY_SUFFIX =
	/[\s,]+(inc|incorporated|llc|ltd|limited|gmbh|corp|corporation|co|company|sa|sas|bv|plc|ag)\.?\s*$/i

/** Built-in step: a likely domain for a company name ("Acme Widgets, Inc." -> acmewidgets.com). */
export function guessDomain(companyName: string | null) {
	let name = companyName?.trim() ?? ''
	while (COMPANY_SUFFIX.test(name)) name = name.replace(COMPANY_SUFFIX, '')
	const slug = ascii(name)
	return slug ? `${slug}.com` : null
}
