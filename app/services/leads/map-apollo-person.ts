// Apify's Apollo actors change often; only name/title/email/linkedin_url and
// organization.name are confirmed in public code. Map defensively: missing
// fields stay empty, a full name is split when first and last are missing.

export type LeadFields = {
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

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

function text(value: unknown): string | null {
	if (typeof value === 'number') return String(value)
	if (typeof value !== 'string') return null
	const trimmed = value.trim()
	return trimmed ? trimmed.slice(0, 1000) : null
}

function record(value: unknown): Record<string, unknown> {
	return value && typeof value === 'object' && !Array.isArray(value)
		? (value as Record<string, unknown>)
		: {}
}

export function domainOf(value: string | null): string | null {
	if (!value) return null
	try {
		const url = new URL(value.includes('://') ? value : `https://${value}`)
		return url.hostname.replace(/^www\./, '').toLowerCase() || null
	} catch {
		return null
	}
}

/** A lead from one dataset item, or null when it has no usable email. */
export function mapApolloPerson(item: unknown): LeadFields | null {
	const person = record(item)
	const email = text(person.email)?.toLowerCase() ?? null
	if (!email || !EMAIL.test(email) || email.length > 254) return null
	let first = text(person.first_name)
	let last = text(person.last_name)
	const name = text(person.name)
	if (!first && !last && name) {
		const [head, ...rest] = name.split(/\s+/)
		first = head ?? null
		last = rest.join(' ') || null
	}
	const organization = record(person.organization)
	const companyName =
		text(organization.name) ?? text(person.organization_name) ?? text(person.company)
	const companyDomain =
		domainOf(text(organization.primary_domain)) ??
		domainOf(text(organization.website_url)) ??
		domainOf(text(person.company_domain))
	const location =
		[person.city, person.state, person.country].map(text).filter(Boolean).join(', ') || null
	const phone =
		text(person.phone) ??
		text(person.sanitized_phone) ??
		text(record(person.phone_numbers).sanitized_number)
	const data: Record<string, unknown> = {}
	for (const key of ['id', 'headline', 'seniority', 'departments', 'twitter_url', 'photo_url']) {
		if (person[key] !== undefined && person[key] !== null)
			data[key === 'id' ? 'apollo_id' : key] = person[key]
	}
	return {
		email,
		first_name: first,
		last_name: last,
		title: text(person.title),
		company_name: companyName,
		company_domain: companyDomain,
		linkedin_url: text(person.linkedin_url),
		location,
		phone,
		email_status: text(person.email_status),
		data,
	}
}
