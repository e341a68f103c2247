import type { RouteConfigEntry } from '@react-router/dev/routes'
import { describe, expect, test } from 'vitest'
import routes, { screens, screenByPattern, type Screen } from './routes.ts'
import { SPEC_ROUTES } from '../tests/support/spec-routes.ts'

describe('the route table against SPEC.md section 2', () => {
	test('every SPEC screen is in the table', () => {
		const missing = SPEC_ROUTES.filter((spec) => !screenByPattern(spec.path)).map((s) => s.path)
		expect(missing).toEqual([])
	})

	test.each(SPEC_ROUTES)('$path has SPEC layout and middleware', (spec) => {
		const screen = screenByPattern(spec.path)
		expect(screen, spec.path).toBeDefined()
		if (!screen) return
		expect(screen.layout).toBe(spec.layout)
		expect([...screen.middleware]).toEqual([...spec.middleware])
		if ('title' in spec) expect(screen.title).toBe(spec.title)
	})

	test('screens beyond SPEC.md need sign-in unless they are auth pages', () => {
		const specPaths = new Set<string>(SPEC_ROUTES.map((s) => s.path))
		for (const screen of (screens as readonly Screen[]).filter(
			(s) => !specPaths.has(`/${s.path}`),
		)) {
			expect(
				screen.middleware.length > 0 || screen.layout === 'auth' || screen.layout === 'none',
				screen.name,
			).toBe(true)
		}
	})

	test('screens sit under their layout route', () => {
		for (const screen of screens as readonly Screen[]) {
			const parent = (routes as RouteConfigEntry[]).find((entry) =>
				entry.children?.some((child) => child.id === screen.name),
			)
			if (screen.layout === 'none') expect(parent).toBeUndefined()
			else expect(parent?.id).toBe(`layout-${screen.layout}`)
		}
	})

	test('an unknown middleware name fails when the table loads', async () => {
		const { assertKnownMiddleware } = await import('./routes.ts')
		expect(() => assertKnownMiddleware([{ name: 'x', middleware: ['auth', 'payment'] }])).toThrow(
			'Unknown middleware "payment" on route "x"',
		)
	})
})
