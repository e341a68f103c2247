import { expect, test } from 'vitest'
import { normalizeDomain, parseDomainList } from './domains.ts'

test.each([
	['acme.com', 'acme.com'],
	['  https://www.Acme.COM/about?x=1 ', 'acme.com'],
	['http://sub.acme.co.uk:8080', 'sub.acme.co.uk'],
	['bücher.de', 'xn--bcher-kva.de'],
	['acme.com.', 'acme.com'],
])('%s is %s', (input, domain) => {
	expect(normalizeDomain(input)).toEqual({ domain })
})

test.each([
	'localhost',
	'acme',
	'-acme.com',
	'acme..com',
	'a_b.com',
	'192.168.0.1',
	`${'a'.repeat(64)}.com`,
])('%s is refused', (input) => {
	expect(normalizeDomain(input)).toHaveProperty('reason')
})

test('a pasted list: unique valid domains, then invalid and duplicate ones with line numbers', () => {
	const result = parseDomainList('acme.com, beta.io\nACME.com\nnot a domain\n\nwww.gamma.dev')
	expect(result.domains).toEqual(['acme.com', 'beta.io', 'gamma.dev'])
	expect(result.duplicates).toEqual([{ line: 2, value: 'ACME.com', reason: 'duplicate' }])
	expect(result.invalid.map((p) => [p.line, p.value])).toEqual([
		[3, 'not'],
		[3, 'a'],
		[3, 'domain'],
	])
})
