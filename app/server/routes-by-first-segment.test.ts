import { matchRoutes, type RouteObject, type ServerBuild } from 'react-router'
import { describe, expect, test } from 'vitest'
import routeTable from '../routes.ts'
import { buildsByFirstSegment, firstSegmentOf } from './routes-by-first-segment.server.ts'

// The app's own route table as a build (modules aside): a path must match the same routes in
// its first segment's build as in the whole one, or a page would change or turn into the 404.

type Entry = { id?: string; path?: string; index?: boolean; children?: Entry[] }

function buildOf(entries: readonly Entry[]): ServerBuild {
	const routes: Record<string, object> = {
		root: { id: 'root', path: '', module: {} },
	}
	const add = (entry: Entry, parentId: string) => {
		routes[entry.id!] = { id: entry.id, parentId, path: entry.path, index: entry.index, module: {} }
		for (const child of entry.children ?? []) add(child, entry.id!)
	}
	for (const entry of entries) add(entry, 'root')
	return {
		routes,
		assets: { url: '/assets/manifest.js', version: '1', entry: {}, routes: { ...routes } },
		routeDiscovery: { mode: 'initial', manifestPath: '/__manifest' },
	} as unknown as ServerBuild
}

/** React Router's own matching over a build's routes, as ids. */
function matchedIds(build: ServerBuild, pathname: string) {
	const byParent = new Map<string | undefined, RouteObject[]>()
	for (const route of Object.values(build.routes)) {
		const list = byParent.get(route!.parentId) ?? []
		list.push({ id: route!.id, path: route!.path, index: route!.index } as RouteObject)
		byParent.set(route!.parentId, list)
	}
	const tree = (parent: string | undefined): RouteObject[] =>
		(byParent.get(parent) ?? []).map((route) =>
			route.index ? route : { ...route, children: tree(route.id) },
		)
	// as the server runtime normalises a single-fetch path
	const path = pathname.endsWith('/_.data')
		? pathname.slice(0, -6)
		: pathname.replace(/\.data$/, '')
	return matchRoutes(tree(undefined), path)?.map((match) => match.route.id) ?? []
}

const build = buildOf(routeTable as readonly Entry[])
const buildFor = buildsByFirstSegment(build)!

const routePaths = Object.values(build.routes)
	.map((route) => route!.path)
	.filter((path): path is string => path !== undefined && path !== '*')
	.map((path) => '/' + path.replace(/:[\w-]+/g, '0193a5c2-7e4f-7000-8000-000000000001'))

const paths = [
	'/',
	'/_.data',
	...routePaths,
	...routePaths.map((path) => `${path}.data`),
	...routePaths.map((path) => `${path}/`),
	...routePaths.map((path) => path.toUpperCase()),
	...routePaths.map((path) => `${path}/not-a-page`),
	'/sign%69n',
	'/signin%2Fverify',
	'/%E0%A4%A',
	'//signin',
	'/no-such-page',
	'/no-such-page.data',
	'/lists',
	'/lists/',
	'/admin-dashboard/users',
]

describe('a build per first segment', () => {
	test('the table splits: every route starts with a fixed segment', () => {
		expect(buildsByFirstSegment(build)).not.toBeNull()
	})

	test('every path matches the same routes as in the whole build', () => {
		const differ = paths.filter((path) => {
			const whole = matchedIds(build, path)
			expect(whole.length, path).toBeGreaterThan(0)
			return matchedIds(buildFor(path), path).join() !== whole.join()
		})
		expect(differ).toEqual([])
	})

	test('a build holds only its segment, the layouts above it, the root and the 404', () => {
		const ids = Object.keys(buildFor('/signin').routes).sort()
		expect(ids).toEqual(['layout-auth', 'not-found', 'root', 'signin', 'signin-verify'])
		expect(Object.keys(buildFor('/signin').assets.routes).sort()).toEqual(ids)
		expect(Object.keys(buildFor('/no-such-page').routes).sort()).toEqual(['not-found', 'root'])
	})

	test('the same build is handed out for every path of a segment', () => {
		expect(buildFor('/lists/1')).toBe(buildFor('/lists/2/enrich'))
		expect(buildFor('/LISTS/1.data')).toBe(buildFor('/lists/1'))
	})

	test('lazy route discovery keeps the whole build: /__manifest names routes of any segment', () => {
		expect(
			buildsByFirstSegment({
				...build,
				routeDiscovery: { mode: 'lazy', manifestPath: '/__manifest' },
			}),
		).toBeNull()
	})

	test('a route whose first segment is a parameter keeps the whole build', () => {
		expect(buildsByFirstSegment(buildOf([{ id: 'team', path: ':team/lists' }]))).toBeNull()
		expect(buildsByFirstSegment(buildOf([{ id: 'opt', path: 'en?/lists' }]))).toBeNull()
		expect(buildsByFirstSegment({ ...build, basename: '/app' })).toBeNull()
	})

	test('the first segment is read as React Router reads it', () => {
		expect(firstSegmentOf('/')).toBe('')
		expect(firstSegmentOf('/_.data')).toBe('')
		expect(firstSegmentOf('/signin.data')).toBe('signin')
		expect(firstSegmentOf('/Lists/1/enrich.data')).toBe('lists')
		expect(firstSegmentOf('/sign%69n')).toBe('signin')
		expect(firstSegmentOf('/%E0%A4%A')).toBe('%e0%a4%a')
	})
})
