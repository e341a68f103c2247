import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { ChainFormSchema, RunSchema } from '../services/enrichments/schemas.ts'
import { formOutOfBounds, MAX_FORM_FIELDS, parseWithZod } from './form-bounds.ts'

function form(entries: [string, string][]) {
	const data = new FormData()
	for (const [name, value] of entries) data.append(name, value)
	return data
}

describe('forms are held to their bounds before they are parsed', () => {
	test('a far array position is refused without making the array', () => {
		const started = performance.now()
		const sparse = form([
			['email', 'x'],
			['password', 'x'],
			['zz[999999999]', '1'],
		])
		expect(formOutOfBounds(sparse.entries())).toMatch(/list longer/)
		expect(() => parseWithZod(sparse, { schema: z.object({ email: z.string() }) })).toThrow()
		// a dense array this long would take far longer (or exhaust the heap); the bound leaves
		// room for a loaded CI machine, where the refusal alone took 1.2 s
		expect(performance.now() - started).toBeLessThan(5_000)
	})

	test('each array is held to its schema: a chain has at most its real number of steps', () => {
		const steps = (n: number) =>
			form([
				['intent', 'create-chain'],
				['name', 'Chain'],
				[`steps[${n}].kind`, 'ai'],
			])
		expect(formOutOfBounds(steps(4).entries(), ChainFormSchema)).toBeNull()
		expect(formOutOfBounds(steps(5).entries(), ChainFormSchema)).toMatch(/list longer/)
		expect(formOutOfBounds(steps(4000).entries(), ChainFormSchema)).toMatch(/list longer/)
		// the run form's filter: three conditions, under a default and refinements
		const where = (n: number) => form([[`where[${n}].op`, 'empty']])
		expect(formOutOfBounds(where(2).entries(), RunSchema)).toBeNull()
		expect(formOutOfBounds(where(3).entries(), RunSchema)).toMatch(/list longer/)
	})

	test('a thrown 400 comes instead of a reply that would echo the posted list', () => {
		try {
			parseWithZod(
				form([
					['intent', 'create-chain'],
					['steps[4000].kind', 'ai'],
				]),
				{ schema: ChainFormSchema },
			)
			expect.unreachable()
		} catch (thrown) {
			expect((thrown as { init: { status: number } }).init.status).toBe(400)
		}
		// a search is held to the same bounds
		expect(() =>
			parseWithZod(new URLSearchParams('where[4000].op=empty'), { schema: RunSchema }),
		).toThrow()
	})

	test('too many fields, or a name too long, is refused; a real form passes', () => {
		const many = form(Array.from({ length: MAX_FORM_FIELDS + 1 }, (_, i) => [`f${i}`, 'x']))
		expect(formOutOfBounds(many.entries())).toMatch(/more than/)
		expect(formOutOfBounds(form([['x'.repeat(201), '1']]).entries())).toMatch(/too long/)
		const real = form([
			['intent', 'create-chain'],
			['name', 'Chain'],
			['steps[0].kind', 'ai'],
			['steps[0].enrichmentId', '00000000-0000-4000-8000-000000000000'],
			['steps[1].kind', 'email-guess'],
		])
		expect(formOutOfBounds(real.entries(), ChainFormSchema)).toBeNull()
		expect(parseWithZod(real, { schema: ChainFormSchema }).status).toBe('success')
	})
})
