import { expect, test } from 'vitest'
import { AddressSet } from './address-set.ts'

test('an address is new once, across growth, with no false "new"', () => {
	const set = new AddressSet(10)
	const addresses = Array.from({ length: 50_000 }, (_, i) => `person${i}@company${i % 97}.com`)
	expect(addresses.every((a) => set.add(a))).toBe(true)
	expect(set.size).toBe(50_000)
	expect(addresses.some((a) => set.add(a))).toBe(false)
	expect(set.add('someone-else@example.com')).toBe(true)
	expect(set.add('')).toBe(true)
	expect(set.add('')).toBe(false)
})
