import { domainOf } from '../leads/map-apollo-person.ts'

export type CompanyFields = {
	name: string | null
	domain: string
	industry: string | null
	employees: number | null
	location: string | null
	linkedin_url: string | null
	description: string | null
	data: Record<string, unknown>
}

function text(value: unknown): string | null {
	if (typeof value !== 'string') return null
	const trimmed = value.trim()
	return trimmed ? trimmed.slice(0, 2000) : null
}

/** A company from an Apollo organization (enrichment answer or actor item); null without a domain. */
export function mapApolloOrganization(
	item: unknown,
	fallbackDomain?: string,
): CompanyFields | null {
	if (!item || typeof item !== 'object' || Array.isArray(item)) return null
	const org = item as Record<string, unknown>
	const domain =
		domainOf(text(org.primary_domain)) ??
		domainOf(text(org.website_url)) ??
		domainOf(text(org.domain)) ??
		fallbackDomain ??
		null
	if (!domain) return null
	const employees = Number(org.estimated_num_employees ?? org.employees)
	const location = [org.city, org.state, org.country].map(text).filter(Boolean).join(', ') || null
	const data: Record<string, unknown> = {}
	for (const key of [
		'id',
		'founded_year',
		'annual_revenue',
		'keywords',
		'phone',
		'technology_names',
	]) {
		if (org[key] !== undefined && org[key] !== null)
			data[key === 'id' ? 'apollo_id' : key] = org[key]
	}
	return {
		name: text(org.name),
		domain,
		industry: text(org.industry),
		employees: Number.isFinite(employees) && employees > 0 ? Math.round(employees) : null,
		location,
		linkedin_url: text(org.linkedin_url),
		description: text(org.short_description) ?? text(org.description),
		data,
	}
}
