import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { importGraph } from './support/import-graph.ts'

// The circle check `npm run lint` runs (.dependency-cruiser.cjs, decision 0070), held to what
// it promises: a circle fails it, also one closed by `import { type X }` (which still loads
// its module under verbatimModuleSyntax); `import type` alone does not (erased at run time).
let dir: string

beforeAll(async () => {
	dir = path.relative('.', await mkdtemp('circles-test-'))
	await writeFile(
		`${dir}/a.ts`,
		`import { b } from './b.ts'\nexport type A = number\nexport const a = () => b\n`,
	)
	await writeFile(`${dir}/b.ts`, `import { c } from './c.ts'\nexport const b = () => c\n`)
	await writeFile(`${dir}/c.ts`, `import { a } from './a.ts'\nexport const c = () => a\n`)
	await writeFile(
		`${dir}/inline.ts`,
		`import { type A } from './a.ts'\nexport const inline: A = 1\n`,
	)
	await writeFile(
		`${dir}/erased.ts`,
		`import type { A } from './a.ts'\nexport const erased: A = 1\n`,
	)
	await writeFile(
		`${dir}/uses-inline.ts`,
		`import { inline } from './inline.ts'\nexport type A = number\nexport const x = inline\n`,
	)
	await writeFile(
		`${dir}/uses-erased.ts`,
		`import { erased } from './erased.ts'\nexport type A = number\nexport const y = erased\n`,
	)
})

afterAll(async () => {
	if (dir) await rm(dir, { recursive: true, force: true })
})

test('a circle of three modules fails the check', { timeout: 120_000 }, async () => {
	const { circles } = await importGraph([`${dir}/a.ts`])
	expect(circles.length).toBeGreaterThan(0)
	expect(circles[0]!.cycle?.map((step) => path.basename(step.name)).sort()).toEqual([
		'a.ts',
		'b.ts',
		'c.ts',
	])
})

test('an inline type import counts; an import type does not', { timeout: 120_000 }, async () => {
	await writeFile(
		`${dir}/inline.ts`,
		`import { type A } from './uses-inline.ts'\nexport const inline: A = 1\n`,
	)
	await writeFile(
		`${dir}/erased.ts`,
		`import type { A } from './uses-erased.ts'\nexport const erased: A = 1\n`,
	)
	const inline = await importGraph([`${dir}/uses-inline.ts`])
	expect(inline.circles.length).toBeGreaterThan(0)
	const erased = await importGraph([`${dir}/uses-erased.ts`])
	expect(erased.circles).toEqual([])
})
