import type { ServerBuild } from 'react-router'

// React Router matches a request against every route of the build, two or three times per
// request (the server runtime, the static handler, the render), and rebuilds its route
// objects for the render each time: with 64 routes that was ~150 µs of a 1.6 ms sign-in page
// (decision 0046). Every route here starts with a fixed first segment, so a path's first
// segment already names the only routes it can match: each first segment gets a build of
// just those routes (with their layouts, the root and the catch-all 404), made once.

type Route = ServerBuild['routes'][string] & {}

/**
 * The build for a pathname (as the URL parser gives it, `.data` suffix and all), or null when
 * the table cannot be split this way (a route whose first segment is a parameter or
 * optional, or a basename) and the whole build must be used. Only with the whole manifest
 * sent at once (`routeDiscovery.mode: 'initial'`): lazy discovery asks `/__manifest` for
 * routes of any segment, which no split build can answer.
 */
export function buildsByFirstSegment(
	build: ServerBuild,
): ((pathname: string) => ServerBuild) | null {
	if (build.routeDiscovery?.mode !== 'initial') return null
	if (build.basename && build.basename !== '/') return null
	const routes = Object.values(build.routes).filter((route): route is Route => Boolean(route))
	const byId = new Map(routes.map((route) => [route.id, route]))
	const fullPath = (route: Route): string => {
		const parent = route.parentId ? byId.get(route.parentId) : undefined
		const own = (route.path ?? '').replace(/^\/+|\/+$/g, '')
		const above = parent ? fullPath(parent) : ''
		return [above, own].filter(Boolean).join('/')
	}
	const ancestors = (route: Route): Route[] => {
		const parent = route.parentId ? byId.get(route.parentId) : undefined
		return parent ? [...ancestors(parent), parent] : []
	}
	const segments = new Map<string, Route[]>()
	const everywhere: Route[] = []
	for (const route of routes) {
		const path = fullPath(route)
		const first = path.split('/')[0] ?? ''
		if (path === '*') everywhere.push(route)
		else if (first.startsWith(':') || first.includes('*') || first.includes('?')) return null
		else if (route.path !== undefined || route.index) {
			const key = first.toLowerCase()
			segments.set(key, [...(segments.get(key) ?? []), route])
		}
	}
	const buildOf = (own: Route[]): ServerBuild => {
		const ids = new Set<string>()
		for (const route of [...own, ...everywhere]) {
			for (const kept of [...ancestors(route), route]) ids.add(kept.id)
		}
		const keep = <T>(table: Record<string, T>) =>
			Object.fromEntries(Object.entries(table).filter(([id]) => ids.has(id)))
		return {
			...build,
			routes: keep(build.routes),
			// the manifest file the browser loads is build.assets.url, whole; the render only
			// needs the routes it can match
			assets: { ...build.assets, routes: keep(build.assets.routes) },
		}
	}
	const builds = new Map([...segments].map(([key, own]) => [key, buildOf(own)]))
	const unknown = buildOf([])
	return (pathname) => builds.get(firstSegmentOf(pathname)) ?? unknown
}

/** The first segment as React Router compares it: without `.data`, decoded, any case. */
export function firstSegmentOf(pathname: string) {
	// single fetch: /_.data is the index's data, /signin.data the sign-in page's
	const path = pathname.endsWith('/_.data')
		? pathname.slice(0, -6)
		: pathname.replace(/\.data$/, '')
	const end = path.indexOf('/', 1)
	const first = end === -1 ? path.slice(1) : path.slice(1, end)
	try {
		return decodeURIComponent(first).toLowerCase()
	} catch {
		return first.toLowerCase()
	}
}
