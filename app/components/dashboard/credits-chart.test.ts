import { describe, expect, test } from 'vitest'
import { creditTicks } from './credits-chart.tsx'

describe('the credits chart’s y axis', () => {
	test('whole-number ticks from 0, at most five steps, the top at or above the busiest day', () => {
		for (const max of [0, 1, 3, 7, 10, 199, 1_045, 123_456]) {
			const ticks = creditTicks(max)
			expect(ticks[0]).toBe(0)
			expect(ticks.at(-1)!).toBeGreaterThanOrEqual(max)
			expect(ticks.length).toBeLessThanOrEqual(6)
			expect(ticks.every(Number.isSafeInteger)).toBe(true)
		}
		expect(creditTicks(199)).toEqual([0, 50, 100, 150, 200])
		expect(creditTicks(0)).toEqual([0, 1])
	})
})
