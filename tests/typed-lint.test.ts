import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { typecheck, typedLint } from '../scripts/typecheck.ts'

// `npm run typecheck` runs the typed lint rules for server code on the program it has built
// (decision 0087): a floating promise in a server file fails it; tests and browser code are
// not held to the rule, as `eslint .` did not hold them.
const dir = mkdtempSync(path.join(tmpdir(), 'typed-lint-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function write(file: string, text: string) {
	mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
	writeFileSync(path.join(dir, file), text)
}

test('a floating promise in server code fails the typecheck; awaited, or outside server code, it does not', async () => {
	write(
		'tsconfig.json',
		JSON.stringify({
			include: ['**/*'],
			compilerOptions: { strict: true, noEmit: true, lib: ['ES2024'], types: [] },
		}),
	)
	const leak = 'export async function save() {}\nexport function later() {\n\tsave()\n}\n'
	write('app/jobs/leaky.server.ts', leak)
	write('app/jobs/leaky.test.ts', leak)
	write('app/components/leaky.ts', leak)
	write(
		'app/jobs/awaited.server.ts',
		'async function save() {}\nexport async function now() {\n\tawait save()\n}\n',
	)

	const { program, diagnostics } = typecheck(path.join(dir, 'tsconfig.json'))
	expect(diagnostics).toEqual([])
	const lint = await typedLint(program, dir)
	const reported = lint.results
		.filter((r) => r.errorCount > 0)
		.map((r) => [path.relative(dir, r.filePath), r.messages.map((m) => m.ruleId)])
	expect(reported).toEqual([
		['app/jobs/leaky.server.ts', ['@typescript-eslint/no-floating-promises']],
	])
	expect(lint.problems).toBe(1)
	expect(lint.report).toContain('leaky.server.ts')
})
