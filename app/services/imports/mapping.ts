import { z } from 'zod'

// Shared by the server and the browser: the lead fields a CSV column can fill, how a
// column is guessed from its header, and the mapping form's schema.

export const MAX_IMPORT_ROWS = 1_000_000
export const PREVIEW_ROWS = 5

export const LEAD_FIELDS = [
	{ key: 'email', label: 'Email', required: true },
	{ key: 'first_name', label: 'First name', required: false },
	{ key: 'last_name', label: 'Last name', required: false },
	{ key: 'title', label: 'Job title', required: false },
	{ key: 'company_name', label: 'Company', required: false },
	{ key: 'company_domain', label: 'Company domain', required: false },
	{ key: 'linkedin_url', label: 'LinkedIn URL', required: false },
	{ key: 'location', label: 'Location', required: false },
	{ key: 'phone', label: 'Phone', required: false },
	{ key: 'email_status', label: 'Email status', required: false },
] as const

export type LeadField = (typeof LEAD_FIELDS)[number]['key']
export const LEAD_FIELD_KEYS = LEAD_FIELDS.map((f) => f.key) as LeadField[]

/** Column index per lead field, and the other columns kept in leads.data by header. */
export type ColumnMapping = Partial<Record<LeadField, number>> & {
	extra: [column: number, name: string][]
}

// Header names as people write them, normalised (lower case, letters and digits only).
const HEADER_GUESSES: Record<LeadField, string[]> = {
	email: [
		'email',
		'emailaddress',
		'mail',
		'workemail',
		'businessemail',
		'personalemail',
		'contactemail',
		'emails',
		'primaryemail',
		'email1',
		// French, German, Spanish, Italian, Portuguese (accents and case are dropped first)
		'courriel',
		'adresseemail',
		'emailadresse',
		'correo',
		'correoelectronico',
		'posta',
	],
	first_name: [
		'firstname',
		'first',
		'givenname',
		'forename',
		'fname',
		'prenom',
		'vorname',
		'nombre',
		'nome',
		'primernombre',
	],
	last_name: [
		'lastname',
		'last',
		'surname',
		'familyname',
		'lname',
		'nom',
		'nomdefamille',
		'nachname',
		'familienname',
		'apellido',
		'apellidos',
		'cognome',
		'sobrenome',
	],
	title: [
		'title',
		'jobtitle',
		'position',
		'role',
		'jobrole',
		'designation',
		'headline',
		'poste',
		'fonction',
		'titel',
		'berufsbezeichnung',
		'cargo',
		'puesto',
		'ruolo',
	],
	company_name: [
		'company',
		'companyname',
		'organization',
		'organisation',
		'organizationname',
		'employer',
		'account',
		'accountname',
		'business',
		'societe',
		'entreprise',
		'firma',
		'unternehmen',
		'empresa',
		'nombredelaempresa',
		'azienda',
	],
	company_domain: [
		'domain',
		'website',
		'companydomain',
		'companywebsite',
		'websiteurl',
		'url',
		'web',
		'site',
		'companyurl',
		'siteweb',
		'siteinternet',
		'webseite',
		'sitioweb',
		'dominio',
		'domaine',
	],
	linkedin_url: [
		'linkedin',
		'linkedinurl',
		'linkedinprofile',
		'personlinkedinurl',
		'linkedinprofileurl',
		'profileurl',
	],
	location: [
		'location',
		'city',
		'country',
		'state',
		'region',
		'address',
		'personlocation',
		'ville',
		'pays',
		'stadt',
		'ort',
		'land',
		'ciudad',
		'pais',
		'citta',
	],
	phone: [
		'phone',
		'phonenumber',
		'mobile',
		'mobilephone',
		'telephone',
		'tel',
		'workphone',
		'directphone',
		'cell',
		'telefon',
		'telefono',
		'portable',
		'handy',
		'movil',
		'celular',
	],
	email_status: ['emailstatus', 'status', 'emailverification', 'verification', 'emailvalidity'],
}

export function normalizeHeader(value: string) {
	return value
		.normalize('NFKD')
		.toLowerCase()
		.replace(/[^a-z0-9]/g, '')
}

/**
 * A file's headers as one key for its saved mapping: each header normalised, in order (the
 * same columns in another order are another file shape).
 */
export function headerSignature(headers: string[]) {
	return headers
		.map((h) =>
			h
				.normalize('NFKD')
				.replace(/\p{M}/gu, '')
				.toLowerCase()
				.replace(/[^\p{L}\p{N}]/gu, ''),
		)
		.join('|')
}

// Quick and strict enough for lead data: one @, a dot in the domain, no spaces or quotes.
const EMAIL = /^[^\s@"'<>(),;:\\[\]]+@[^\s@"'<>(),;:\\[\]]+\.[^\s@"'<>(),;:\\[\].]{2,}$/

/** The address as it is kept (trimmed, without mailto: or <>), or null when it is not one. */
export function cleanEmail(raw: string): string | null {
	let value = raw.trim()
	if (value.startsWith('<') && value.endsWith('>')) value = value.slice(1, -1).trim()
	if (value.length > 7 && value.slice(0, 7).toLowerCase() === 'mailto:') value = value.slice(7)
	if (value.length > 254 || !EMAIL.test(value)) return null
	return value
}

export function looksLikeEmail(value: string) {
	return cleanEmail(value) !== null
}

/**
 * Whether the first record is a header: some cell names a known field, or the first row
 * has no email address while a later row does in the same column.
 */
export function detectHeader(records: string[][]): boolean {
	const first = records[0]
	if (!first) return false
	const known = new Set(Object.values(HEADER_GUESSES).flat())
	if (first.some((cell) => known.has(normalizeHeader(cell)))) return true
	const rest = records.slice(1)
	return first.some(
		(cell, column) =>
			!looksLikeEmail(cell) && rest.some((row) => looksLikeEmail(row[column] ?? '')),
	)
}

/** The column whose sample values are mostly email addresses, else -1. */
function emailColumnByValues(rows: string[][], columns: number) {
	let best = -1
	let bestCount = 0
	for (let column = 0; column < columns; column++) {
		const count = rows.filter((row) => looksLikeEmail(row[column] ?? '')).length
		if (count > bestCount) {
			best = column
			bestCount = count
		}
	}
	return bestCount > 0 ? best : -1
}

/** The mapping guessed from the header names (and, for email, from the values). */
export function guessMapping(headers: string[] | null, sample: string[][]): ColumnMapping {
	const columns = Math.max(headers?.length ?? 0, ...sample.map((r) => r.length), 0)
	const mapping: ColumnMapping = { extra: [] }
	const used = new Set<number>()
	if (headers) {
		const normalized = headers.map(normalizeHeader)
		// exact names first for every field, in the order of preference ("Nombre" is the first
		// name even after "Nombre de la empresa"), then names that contain one
		for (const field of LEAD_FIELD_KEYS) {
			for (const guess of HEADER_GUESSES[field]) {
				const column = normalized.findIndex((h, i) => h === guess && !used.has(i))
				if (column >= 0) {
					mapping[field] = column
					used.add(column)
					break
				}
			}
		}
		for (const field of LEAD_FIELD_KEYS) {
			if (mapping[field] !== undefined || field === 'email_status') continue
			const column = normalized.findIndex(
				(h, i) =>
					!used.has(i) &&
					h.length > 0 &&
					HEADER_GUESSES[field].some((g) => g.length > 3 && h.includes(g)),
			)
			if (column >= 0) {
				mapping[field] = column
				used.add(column)
			}
		}
	}
	const byValues = emailColumnByValues(sample, columns)
	if (
		byValues >= 0 &&
		(mapping.email === undefined || !looksLikeEmailColumn(sample, mapping.email))
	) {
		if (mapping.email !== undefined) used.delete(mapping.email)
		for (const field of LEAD_FIELD_KEYS) if (mapping[field] === byValues) delete mapping[field]
		mapping.email = byValues
		used.add(byValues)
	}
	if (headers) {
		for (let column = 0; column < headers.length; column++) {
			const name = headers[column]!.trim()
			if (!used.has(column) && name) mapping.extra.push([column, name])
		}
	}
	return mapping
}

function looksLikeEmailColumn(sample: string[][], column: number) {
	return sample.length === 0 || sample.some((row) => looksLikeEmail(row[column] ?? ''))
}

/** 'A', 'B', ..., 'Z', 'AA': spreadsheet column letters. */
export function columnLetter(index: number) {
	let n = index + 1
	let letters = ''
	while (n > 0) {
		const rest = (n - 1) % 26
		letters = String.fromCharCode(65 + rest) + letters
		n = Math.floor((n - 1) / 26)
	}
	return letters
}

const column = z.coerce
	.number()
	.int()
	.min(0)
	.max(9999)
	.optional()
	.or(z.literal('').transform(() => undefined))

/** The column-mapping step's form. */
export const MappingSchema = z
	.object({
		// the page's form says it; the API (POST /api/v1/lead-lists) need not
		intent: z.literal('import').default('import'),
		uploadId: z.uuid({ error: 'Upload the file again' }),
		name: z
			.string({ error: 'Name the list' })
			.trim()
			.min(1, 'Name the list')
			.max(120, 'Use at most 120 characters'),
		workspaceId: z.uuid({ error: 'Choose a workspace' }).optional(),
		hasHeader: z.boolean().default(false),
		keepExtra: z.boolean().default(false),
		email: z.coerce
			.number({ error: 'Choose the column that holds the email addresses' })
			.int()
			.min(0, 'Choose the column that holds the email addresses'),
		first_name: column,
		last_name: column,
		title: column,
		company_name: column,
		company_domain: column,
		linkedin_url: column,
		location: column,
		phone: column,
		email_status: column,
	})
	.superRefine((value, ctx) => {
		const seen = new Map<number, LeadField>()
		for (const field of LEAD_FIELDS) {
			const index = value[field.key]
			if (index === undefined) continue
			const other = seen.get(index)
			if (other) {
				const otherLabel = LEAD_FIELDS.find((f) => f.key === other)!.label
				ctx.addIssue({
					code: 'custom',
					path: [field.key],
					message: `Column ${columnLetter(index)} is already used for ${otherLabel}`,
				})
			} else seen.set(index, field.key)
		}
	})

export type MappingInput = z.infer<typeof MappingSchema>

/** The upload form: one CSV file (its size is checked in the browser and again on the server). */
export function uploadSchema(limitBytes: number) {
	return z.object({
		intent: z.literal('upload'),
		file: z
			.instanceof(File, { error: 'Choose a CSV file' })
			.refine((file) => file.size > 0, 'Choose a CSV file (this one is empty)')
			.refine(
				(file) => file.size <= limitBytes,
				`The file is larger than ${formatBytes(limitBytes)}. Split it and upload the parts.`,
			),
	})
}

export function formatBytes(bytes: number) {
	if (bytes < 1024) return `${bytes} B`
	const units = ['KB', 'MB', 'GB', 'TB']
	let value = bytes / 1024
	let unit = 0
	while (value >= 1024 && unit < units.length - 1) {
		value /= 1024
		unit++
	}
	return `${value >= 100 ? Math.round(value) : value.toFixed(1).replace(/\.0$/, '')} ${units[unit]}`
}

export type MappingStep = {
	hasHeader: boolean
	columns: { index: number; letter: string; header: string; sample: string }[]
	/** the first data rows */
	preview: string[][]
	guess: ColumnMapping
	/** the guess is the account's saved mapping for files with these headers */
	saved: boolean
	keepExtra: boolean
}

/** What the column-mapping step shows for a file's first records. */
export function mappingStep(head: string[][]): MappingStep {
	const hasHeader = detectHeader(head)
	const headers = hasHeader ? (head[0] ?? []) : null
	const rows = head.slice(hasHeader ? 1 : 0)
	const width = Math.max(0, ...head.map((r) => r.length))
	const columns = Array.from({ length: width }, (_, index) => ({
		index,
		letter: columnLetter(index),
		header: headers?.[index]?.trim() ?? '',
		sample: rows.map((r) => r[index]?.trim() ?? '').find(Boolean) ?? '',
	}))
	return {
		hasHeader,
		columns,
		preview: rows.slice(0, PREVIEW_ROWS),
		guess: guessMapping(headers, rows),
		saved: false,
		keepExtra: true,
	}
}

/** How a column is offered in the mapping step: 'B · First Name (e.g. Ada)'. */
export function columnOptionLabel(column: MappingStep['columns'][number]) {
	const name = column.header || 'no header'
	const sample = column.sample.length > 30 ? `${column.sample.slice(0, 29)}…` : column.sample
	return `${column.letter} · ${name}${sample ? ` (e.g. ${sample})` : ''}`
}
