import { describe, expect, test } from 'vitest'
import { safeRedirect } from './safe-redirect.ts'

const ORIGIN = 'https://app.example.com'

// What a browser does with each answer: a Location header that leaves the origin, or that
// cannot be sent at all (a 500), is the bug these rows catch.
const KEPT: [target: string, path: string][] = [
	['/', '/'],
	['/lists/1', '/lists/1'],
	['/lists/1?tab=rows&page=2#top', '/lists/1?tab=rows&page=2#top'],
	['/file-list?upload=abc', '/file-list?upload=abc'],
	['/accept-invitation?token=a%2Bb', '/accept-invitation?token=a%2Bb'],
	// dot segments are resolved, as the browser would
	['/a/../b', '/b'],
	['/a/./b', '/a/b'],
	// what a header cannot carry is percent-encoded, not refused
	['/lists/é', '/lists/%C3%A9'],
	['/search?q=a b', '/search?q=a%20b'],
	['/a"b<c>', '/a%22b%3Cc%3E'],
	// an encoded slash later in the path is just a path
	['/a/%2F/b', '/a/%2F/b'],
	// a backslash inside the path is a slash to browsers, still on our origin
	['/a\\b', '/a/b'],
	// an absolute URL on our own origin keeps its path
	[`${ORIGIN}/lists/2?x=1`, '/lists/2?x=1'],
	['HTTPS://APP.EXAMPLE.COM/lists', '/lists'],
]

const REFUSED: string[] = [
	'',
	// other hosts, however they are spelled
	'//evil.com',
	'///evil.com',
	'////evil.com',
	'/\\evil.com',
	'\\\\evil.com',
	'\\/evil.com',
	'/\\/evil.com',
	'https://evil.com',
	'http://evil.com/lists',
	'HTTP://EVIL.COM',
	'http:evil.com',
	'https:evil.com',
	'http:/evil.com',
	'http:\\\\evil.com',
	'//evil.com@app.example.com',
	'https://app.example.com.evil.com/',
	'https://app.example.com@evil.com/',
	'http://app.example.com/', // another scheme is another origin
	'https://app.example.com:444/',
	// other schemes
	'javascript:alert(1)',
	'JaVaScRiPt:alert(1)',
	'data:text/html,<script>alert(1)</script>',
	'mailto:a@b.c',
	// not a path at all
	'lists/1',
	'evil.com',
	'.',
	'..//evil.com',
	'?next=/',
	'#top',
	// paths that resolve to, or decode to, another host
	'/.//evil.com',
	'/..//evil.com',
	'/a/../..//evil.com',
	'/%2e%2e//evil.com',
	'/%2F%2Fevil.com',
	'/%2f/evil.com',
	'/%5Cevil.com',
	'/%5c%5cevil.com',
	// tabs and newlines that browsers drop, and every other control character
	'/\t/evil.com',
	'/\n/evil.com',
	'/\r\n/evil.com',
	'\t//evil.com',
	' //evil.com',
	'/lists\r\nSet-Cookie: a=b',
	'/lists\u0000',
	'/lists\u001b[31m',
	'/lists\u007f',
	'/\u0009/evil.com',
]

describe('safeRedirect', () => {
	test.each(KEPT)('keeps %j as %j', (target, path) => {
		expect(safeRedirect(target, { origin: ORIGIN })).toBe(path)
	})

	test.each(REFUSED)('refuses %j', (target) => {
		expect(safeRedirect(target, { origin: ORIGIN })).toBe('/')
		expect(safeRedirect(target, { origin: ORIGIN, fallback: '/signin' })).toBe('/signin')
	})

	test('refuses what is not a string', () => {
		for (const target of [undefined, null, 1, {}, ['/lists']]) {
			expect(safeRedirect(target)).toBe('/')
		}
	})

	test('without the origin, absolute URLs are refused even when they are ours', () => {
		expect(safeRedirect(`${ORIGIN}/lists`)).toBe('/')
	})

	test('every answer can go in a Location header and stays on the origin', () => {
		for (const target of [...KEPT.map(([t]) => t), ...REFUSED]) {
			const path = safeRedirect(target, { origin: ORIGIN })
			expect(() => new Headers({ Location: path })).not.toThrow()
			expect(new URL(path, ORIGIN).origin).toBe(ORIGIN)
			expect(path).toMatch(/^\/(?![/\\])/)
		}
	})
})
