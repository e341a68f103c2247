// Issue 33: a route module reads top to bottom (loader, schema, action, component, meta) and
// stays at 400 lines or fewer; a screen's forms live in components/<area>, what its action does
// beyond dispatching in services/<area>.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { expect, test } from 'vitest'

const MAX_LINES = 400
const ROUTES_DIR = path.dirname(new URL(import.meta.url).pathname)

function routeModules(dir: string, prefix = ''): string[] {
	return readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
		const name = path.join(prefix, entry.name)
		if (entry.isDirectory()) return routeModules(dir, name)
		return /\.tsx?$/.test(entry.name) && !entry.name.includes('.test.') ? [name] : []
	})
}

test(`route modules have at most ${MAX_LINES} lines`, () => {
	const over = routeModules(ROUTES_DIR)
		.map((file) => ({
			file,
			lines: readFileSync(path.join(ROUTES_DIR, file), 'utf8').split('\n').length - 1,
		}))
		.filter(({ lines }) => lines > MAX_LINES)
	expect(over).toEqual([])
})
