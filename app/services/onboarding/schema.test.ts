import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { describe, expect, it } from 'vitest'
import { checkPhone, filterCountries } from '../../components/phone-input/phone.ts'
import { isValidDistinctId, pageName } from '../analytics/identity.ts'
import { normalizeWebsite, OnboardingConstraint, OnboardingSchema } from './schema.ts'

function form(values: Record<string, string | string[]>) {
	const data = new FormData()
	for (const [key, value] of Object.entries(values))
		for (const v of [value].flat()) data.append(key, v)
	return data
}

const valid = {
	company: 'Acme',
	website: 'acme.example',
	role: 'Agency',
	teamSize: '2-10',
	goals: 'Find leads',
	phoneCountry: 'GB',
	phone: '020 7946 0958',
}

describe('OnboardingSchema', () => {
	it('gives conform its constraints', () => {
		const constraint = getZodConstraint(OnboardingConstraint)
		expect(constraint.company).toMatchObject({ required: true })
		expect(constraint.role).toMatchObject({ required: true })
		expect(constraint.website?.required).toBeFalsy()
	})

	it('stores the phone as E.164 and adds https:// to a bare domain', () => {
		const result = parseWithZod(form(valid), { schema: OnboardingSchema })
		expect(result.status).toBe('success')
		expect(result.status === 'success' && result.value).toMatchObject({
			phone: '+442079460958',
			website: 'https://acme.example',
			goals: ['Find leads'],
		})
	})

	it('refuses a phone of another country, a website that is not a URL and long fields', () => {
		const result = parseWithZod(
			form({ ...valid, phoneCountry: 'FR', phone: '(201) 555-0123', website: 'not a url' }),
			{ schema: OnboardingSchema },
		)
		expect(result.status === 'error' && result.error).toMatchObject({
			phone: ['Enter a valid phone number for France.'],
			website: ['Enter a website address, like example.com.'],
		})
		const long = parseWithZod(form({ ...valid, company: 'x'.repeat(121) }), {
			schema: OnboardingSchema,
		})
		expect(long.status === 'error' && long.error?.company).toEqual(['Use at most 120 characters.'])
	})
})

describe('phone helpers', () => {
	it('checks numbers against the chosen country', () => {
		expect(checkPhone('(201) 555-0123', 'US')).toEqual({ ok: true, e164: '+12015550123' })
		expect(checkPhone('(201) 555-0123', 'FR').ok).toBe(false)
		expect(checkPhone('+44 20 7946 0958', 'US').ok).toBe(false)
		expect(checkPhone('201-555-CALL', 'US', { restrictCharacters: true })).toEqual({
			ok: false,
			message: 'Use only digits, spaces, parentheses, plus and hyphen.',
		})
		expect(checkPhone('1'.repeat(26), 'US').ok).toBe(false)
	})

	it('filters countries by name, code and calling code', () => {
		expect(filterCountries('germ').map((c) => c.code)).toEqual(['DE'])
		expect(filterCountries('+49').map((c) => c.code)).toContain('DE')
		expect(filterCountries('zzzz')).toEqual([])
	})

	it('normalizes websites', () => {
		expect(normalizeWebsite(' example.com ')).toBe('https://example.com')
		expect(normalizeWebsite('http://example.com')).toBe('http://example.com')
	})
})

describe('analytics identity', () => {
	it('rejects empty ids and the literal distinct_id words', () => {
		for (const id of ['', '  ', 'distinct_id', 'DistinctId', 'distinctid'])
			expect(isValidDistinctId(id)).toBe(false)
		expect(isValidDistinctId('0b6c3f0e-user')).toBe(true)
	})

	it('names pages by route, else path, else title', () => {
		expect(pageName('settings', '/settings', 'Settings')).toBe('settings')
		expect(pageName(undefined, '/x', 'T')).toBe('/x')
		expect(pageName(undefined, '', 'T')).toBe('T')
	})
})
