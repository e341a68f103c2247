import { describe, expect, it } from 'vitest'
import { BASE_HEIGHT, BASE_WIDTH, BOX_COUNT, GRAVITY, boxScale } from './box-scale.ts'

describe('boxScale', () => {
	it('scales every 7th box 1, every 4th box 0.8 and the rest 0.5 for boxes 1..20', () => {
		const scales = Array.from({ length: BOX_COUNT }, (_, i) => boxScale(i + 1))
		expect(scales).toEqual([
			0.5, 0.5, 0.5, 0.8, 0.5, 0.5, 1, 0.8, 0.5, 0.5, 0.5, 0.8, 0.5, 1, 0.5, 0.8, 0.5, 0.5, 0.5,
			0.8,
		])
	})

	it('gives the 7th-box rule precedence over the 4th-box rule', () => {
		expect(boxScale(28)).toBe(1)
		expect(boxScale(56)).toBe(1)
		expect(boxScale(24)).toBe(0.8)
	})

	it('counts 2 full-size, 5 medium and 13 small boxes', () => {
		const scales = Array.from({ length: BOX_COUNT }, (_, i) => boxScale(i + 1))
		expect(scales.filter((s) => s === 1)).toHaveLength(2)
		expect(scales.filter((s) => s === 0.8)).toHaveLength(5)
		expect(scales.filter((s) => s === 0.5)).toHaveLength(13)
	})

	it('uses the specified constants', () => {
		expect(BOX_COUNT).toBe(20)
		expect(BASE_WIDTH).toBe(300)
		expect(BASE_HEIGHT).toBe(150)
		expect(GRAVITY).toBe(0.5)
	})
})
