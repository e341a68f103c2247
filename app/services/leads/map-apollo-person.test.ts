import { expect, test } from 'vitest'
import { mapApolloPerson } from './map-apollo-person.ts'

test('a full Apollo person maps to a lead', () => {
	expect(
		mapApolloPerson({
			id: 'p1',
			first_name: 'Ada',
			last_name: 'Lovelace',
			title: 'CEO',
			email: 'Ada@Example.com ',
			email_status: 'verified',
			linkedin_url: 'https://linkedin.com/in/ada',
			city: 'London',
			country: 'United Kingdom',
			organization: { name: 'Engines Ltd', website_url: 'https://www.engines.example' },
		}),
	).toEqual({
		email: 'ada@example.com',
		first_name: 'Ada',
		last_name: 'Lovelace',
		title: 'CEO',
		company_name: 'Engines Ltd',
		company_domain: 'engines.example',
		linkedin_url: 'https://linkedin.com/in/ada',
		location: 'London, United Kingdom',
		phone: null,
		email_status: 'verified',
		data: { apollo_id: 'p1' },
	})
})

test('missing fields stay empty and a full name is split', () => {
	expect(
		mapApolloPerson({ name: 'Grace Brewster Hopper', email: 'grace@navy.example' }),
	).toMatchObject({
		first_name: 'Grace',
		last_name: 'Brewster Hopper',
		title: null,
		company_name: null,
		location: null,
	})
})

test.each([[{ name: 'No Email' }], [{ email: 'not-an-email' }], [null], ['text'], [[1, 2]]])(
	'%j is no lead',
	(item) => {
		expect(mapApolloPerson(item)).toBeNull()
	},
)
