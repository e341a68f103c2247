// Apollo search URLs keep their filters after '#': https://app.apollo.io/#/people?<query>.
// The filters are read back to the user in words (reference/emailbison-apify-apollo.md).

export const APOLLO_FILTERS: Record<string, { api: string; label: string }> = {
	personTitles: { api: 'person_titles', label: 'Job titles' },
	personNotTitles: { api: 'person_not_titles', label: 'Excluded job titles' },
	personLocations: { api: 'person_locations', label: 'Person locations' },
	personSeniorities: { api: 'person_seniorities', label: 'Seniorities' },
	organizationLocations: { api: 'organization_locations', label: 'Company locations' },
	organizationNumEmployeesRanges: {
		api: 'organization_num_employees_ranges',
		label: 'Company sizes',
	},
	contactEmailStatusV2: { api: 'contact_email_status', label: 'Email statuses' },
	qKeywords: { api: 'q_keywords', label: 'Keywords' },
	qOrganizationKeywordTags: { api: 'q_organization_keyword_tags', label: 'Company keywords' },
	qOrganizationDomainsList: { api: 'q_organization_domains_list', label: 'Company domains' },
}

const IGNORED = new Set([
	'finderViewId',
	'sortByField',
	'sortAscending',
	'page',
	'prospectedByCurrentTeam',
	'includedOrganizationKeywordFields',
])

export type ApolloFilter = { key: string; label: string; values: string[] }
export type ApolloSearch = { kind: 'people' | 'companies'; url: string; filters: ApolloFilter[] }
export type ParsedApolloUrl = { ok: true; search: ApolloSearch } | { ok: false; error: string }

function describeValue(key: string, value: string) {
	if (key === 'organizationNumEmployeesRanges') {
		const [from, to] = value.split(',')
		return to ? `${from}–${to} employees` : `${from}+ employees`
	}
	return value
}

/** Reads an Apollo search URL; `kind` says which search it must be. */
export function parseApolloUrl(
	input: string,
	kind: 'people' | 'companies' = 'people',
): ParsedApolloUrl {
	let url: URL
	try {
		url = new URL(input.trim())
	} catch {
		return {
			ok: false,
			error: 'Paste the full address of an Apollo search (https://app.apollo.io/#/…)',
		}
	}
	if (!['http:', 'https:'].includes(url.protocol) || url.hostname !== 'app.apollo.io') {
		return {
			ok: false,
			error: 'This is not an Apollo address: it must start with https://app.apollo.io/',
		}
	}
	const hash = url.hash.replace(/^#/, '')
	const [route = '', query = ''] = hash.split('?')
	const expected = kind === 'people' ? '/people' : '/companies'
	if (route.replace(/\/$/, '') !== expected) {
		return {
			ok: false,
			error:
				kind === 'people'
					? 'This is not an Apollo people search: open People in Apollo, set your filters and copy the address'
					: 'This is not an Apollo company search: open Companies in Apollo, set your filters and copy the address',
		}
	}
	const params = new URLSearchParams(query)
	const filters = new Map<string, ApolloFilter>()
	for (const [rawKey, value] of params) {
		const key = rawKey.replace(/\[\]$/, '')
		if (IGNORED.has(key) || !value.trim()) continue
		const known = APOLLO_FILTERS[key]
		const label =
			known?.label ?? key.replace(/([A-Z])/g, ' $1').replace(/^./, (c) => c.toUpperCase())
		const filter = filters.get(key) ?? { key, label, values: [] }
		filter.values.push(describeValue(key, value))
		filters.set(key, filter)
	}
	if (filters.size === 0) {
		return {
			ok: false,
			error: 'This search has no filters: add at least one in Apollo (titles, locations, …)',
		}
	}
	return { ok: true, search: { kind, url: url.toString(), filters: [...filters.values()] } }
}

const PLACEHOLDER = /\{\{\s*([\w .-]+?)\s*\}\}/g

/** The {{placeholders}} of a URL template, in order, once each. */
export function templatePlaceholders(template: string): string[] {
	return [...new Set([...template.matchAll(PLACEHOLDER)].map((m) => m[1]!))]
}

/** Fills a template's placeholders (URL-encoded); missing values stay empty. */
export function fillTemplate(template: string, values: Record<string, string>): string {
	return template.replace(PLACEHOLDER, (_, name: string) => encodeURIComponent(values[name] ?? ''))
}
