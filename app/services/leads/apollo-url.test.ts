import { describe, expect, test } from 'vitest'
import { fillTemplate, parseApolloUrl, templatePlaceholders } from './apollo-url.ts'

const people =
	'https://app.apollo.io/#/people?finderViewId=5b6dfc5a&personTitles[]=ceo&personTitles[]=founder&personLocations[]=Germany&organizationNumEmployeesRanges[]=11%2C50&page=2&sortByField=x'

describe('Apollo search URLs', () => {
	test('filters are read back in words; view, sort and page are ignored', () => {
		const parsed = parseApolloUrl(people)
		expect(parsed.ok).toBe(true)
		if (!parsed.ok) return
		expect(parsed.search.filters).toEqual([
			{ key: 'personTitles', label: 'Job titles', values: ['ceo', 'founder'] },
			{ key: 'personLocations', label: 'Person locations', values: ['Germany'] },
			{
				key: 'organizationNumEmployeesRanges',
				label: 'Company sizes',
				values: ['11–50 employees'],
			},
		])
	})

	test.each([
		['not a url', 'Paste the full address'],
		['https://example.com/#/people?personTitles[]=ceo', 'not an Apollo address'],
		['https://app.apollo.io/#/companies?qKeywords=saas', 'not an Apollo people search'],
		['https://app.apollo.io/#/people?finderViewId=1&page=1', 'no filters'],
		['https://app.apollo.io/#/people', 'no filters'],
		['ftp://app.apollo.io/#/people?personTitles[]=ceo', 'not an Apollo address'],
	])('%s is refused', (input, message) => {
		const parsed = parseApolloUrl(input)
		expect(parsed.ok).toBe(false)
		if (!parsed.ok) expect(parsed.error).toContain(message)
	})

	test('company searches are told apart', () => {
		expect(parseApolloUrl('https://app.apollo.io/#/companies?qKeywords=saas', 'companies').ok).toBe(
			true,
		)
		expect(parseApolloUrl(people, 'companies').ok).toBe(false)
	})

	test('templates: placeholders become fields and are filled URL-encoded', () => {
		const template =
			'https://app.apollo.io/#/people?personTitles[]={{title}}&personLocations[]={{ country }}&x={{title}}'
		expect(templatePlaceholders(template)).toEqual(['title', 'country'])
		expect(fillTemplate(template, { title: 'VP Sales', country: 'United States' })).toBe(
			'https://app.apollo.io/#/people?personTitles[]=VP%20Sales&personLocations[]=United%20States&x=VP%20Sales',
		)
	})
})
