import { expect, test } from 'vitest'
import {
	librariesInBuild,
	PAGE_ONLY_LIBRARIES,
	pageJavaScript,
	SIGNIN_ROUTES,
} from '../support/page-javascript.ts'

// Issue 19 point 6: /signin loaded 26 files, 175 KB gzipped. Runs on the production
// build (npm test builds before Vitest); docs/decisions/0030-sign-in-page-javascript-budget.md.
test('the sign-in page loads at most 10 JavaScript files, 120 KB gzipped, without page-only libraries', () => {
	const page = pageJavaScript(SIGNIN_ROUTES)
	// the modulepreload files and the route manifest
	expect(page.modules.length + 1).toBeLessThanOrEqual(10)
	expect(page.totalGzipBytes).toBeLessThanOrEqual(120 * 1024)
	expect(page.librariesFound).toEqual([])
})

test('the markers find each library in the build', () => {
	// or the first test would prove nothing
	expect(librariesInBuild()).toEqual(Object.keys(PAGE_ONLY_LIBRARIES))
})
