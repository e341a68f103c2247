import { describe, expect, test } from 'vitest'
import {
	emailBisonLeadJson,
	toEmailBisonLead,
	type LeadRow,
	type UploadMapping,
} from './mapping.ts'

const lead = (fields: Partial<LeadRow>): LeadRow => ({
	email: 'ada@example.com',
	first_name: 'Ada',
	last_name: 'Lovelace',
	title: null,
	company_name: null,
	company_domain: null,
	linkedin_url: null,
	location: null,
	phone: null,
	email_status: null,
	data: {},
	...fields,
})

const mapping: UploadMapping = {
	fields: {
		email: 'email',
		first_name: 'first_name',
		last_name: 'last_name',
		title: 'title',
		company: 'company_name',
		notes: 'data:notes',
	},
	variables: [
		{ source: 'linkedin_url', name: 'linkedin_url' },
		{ source: 'data:icebreaker', name: 'icebreaker' },
		{ source: 'data:score', name: 'score "quoted"' },
	],
}

describe('a lead written straight as JSON', () => {
	test.each([
		['the plain fields', lead({})],
		[
			'every field and variable',
			lead({
				title: '  CEO ',
				company_name: 'Acme, "Inc."',
				linkedin_url: 'https://linkedin.com/in/ada',
				data: { icebreaker: 'Hi\nthere \\o/ \u2028 ünïcödé 😀', notes: 'n', score: { a: [1, 2] } },
			}),
		],
		[
			'empty and blank values left out',
			lead({
				title: '   ',
				company_name: '',
				first_name: null,
				data: { icebreaker: '  ', notes: null, score: 0 },
			}),
		],
		[
			'control characters and a lone surrogate',
			lead({ last_name: 'a\u0000b\u001f\ud800c', data: 'not an object' }),
		],
	])('is the same JSON the object would give (%s)', (_, row) => {
		const json = emailBisonLeadJson(row, mapping)
		expect(json).toBe(JSON.stringify(toEmailBisonLead(row, mapping)))
		expect(JSON.parse(json)).toEqual(toEmailBisonLead(row, mapping))
	})

	test('with no optional fields and no variables mapped', () => {
		const bare: UploadMapping = { fields: { email: 'email' }, variables: [] }
		const row = lead({ title: 'CTO' })
		expect(emailBisonLeadJson(row, bare)).toBe(
			'{"email":"ada@example.com","first_name":"","last_name":""}',
		)
		expect(emailBisonLeadJson(row, bare)).toBe(JSON.stringify(toEmailBisonLead(row, bare)))
	})
})
