import { readFileSync } from 'node:fs'
import { expect, test } from 'vitest'
import { ceilingLayout, SOURCE, TARGET } from '../bench/framework/refresh.ts'

// The bench's framework ceiling serves GET / with the app's layout markup: its layout module is
// written from the app's by `npm run bench:ceiling`, and a change to the app's layout that was
// not carried over would make the bench compare the app with another page.
test("the framework ceiling's layout is the app's, as `npm run bench:ceiling` writes it", async () => {
	const written = await ceilingLayout(readFileSync(SOURCE, 'utf8'))
	expect(readFileSync(TARGET, 'utf8'), 'run `npm run bench:ceiling`').toBe(written)
})

test('the ceiling keeps no server code of the layout, only its markup', async () => {
	const written = await ceilingLayout(readFileSync(SOURCE, 'utf8'))
	expect(written).not.toContain('shouldRevalidate')
	expect(written).not.toContain('requestContext')
	expect(written).toMatch(/export function loader\(\) \{\s*return layoutData\s*\}/)
	// a server module is imported for its types alone
	for (const line of written.split('\n').filter((l) => /from '.*\.server\.ts'/.test(l)))
		expect(line).toMatch(/^import type /)
	expect(written).toContain('export default function DefaultLayout')
})
