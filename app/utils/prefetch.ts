/**
 * Prefetching on intent (SPEC.md section 9): on pointerenter or focus of an internal
 * link, the target route's modules are preloaded, at most MAX_PARALLEL_PRELOADS at
 * once, and none at all on save-data or 2g connections.
 */
import { matchRoutes, type RouteObject } from 'react-router'

export const MAX_PARALLEL_PRELOADS = 4

type ManifestRoute = {
	id: string
	parentId?: string
	path?: string
	index?: boolean
	module: string
	imports?: string[]
	css?: string[]
}
type Manifest = { routes: Record<string, ManifestRoute> }
type Connection = { saveData?: boolean; effectiveType?: string }

export function prefetchAllowed(connection: Connection | undefined) {
	if (!connection) return true
	return !connection.saveData && connection.effectiveType !== '2g'
}

const done = new Set<string>()
const queue: string[] = []
let running = 0

/**
 * For tests: how many preloads are in flight, the most ever seen at once, and how many links'
 * preloads the connection declined.
 */
export const preloadStats = { running: 0, peak: 0, started: 0, declined: 0 }

function pump() {
	while (running < MAX_PARALLEL_PRELOADS && queue.length > 0) {
		const href = queue.shift()!
		running++
		preloadStats.started++
		preloadStats.running = running
		preloadStats.peak = Math.max(preloadStats.peak, running)
		const finish = () => {
			running--
			preloadStats.running = running
			pump()
		}
		const link = document.createElement('link')
		link.rel = href.endsWith('.css') ? 'preload' : 'modulepreload'
		if (link.rel === 'preload') link.as = 'style'
		link.href = href
		link.onload = finish
		link.onerror = finish
		document.head.appendChild(link)
	}
}

export function enqueuePreload(hrefs: string[]) {
	for (const href of hrefs) {
		if (done.has(href)) continue
		done.add(href)
		queue.push(href)
	}
	pump()
}

function manifest(): Manifest | undefined {
	return (window as unknown as { __reactRouterManifest?: Manifest }).__reactRouterManifest
}

function routeTree(routes: Record<string, ManifestRoute>, parentId?: string): RouteObject[] {
	return Object.values(routes)
		.filter((r) => r.parentId === parentId)
		.map((r): RouteObject =>
			r.index
				? { id: r.id, path: r.path, index: true }
				: { id: r.id, path: r.path, children: routeTree(routes, r.id) },
		)
}

/** The module files of the routes `pathname` matches (from window.__reactRouterManifest). */
export function routeModulesFor(pathname: string): string[] {
	const m = manifest()
	if (!m) return []
	const matches = matchRoutes(routeTree(m.routes, 'root'), pathname) ?? []
	return matches.flatMap(({ route }) => {
		const entry = route.id ? m.routes[route.id] : undefined
		return entry ? [entry.module, ...(entry.imports ?? []), ...(entry.css ?? [])] : []
	})
}

/** Preloads the route modules behind an internal link, when the connection allows it. */
export function prefetchLink(href: string) {
	if (typeof window === 'undefined') return
	;(window as unknown as { __preloadStats?: typeof preloadStats }).__preloadStats = preloadStats
	const connection = (navigator as Navigator & { connection?: Connection }).connection
	if (!prefetchAllowed(connection)) {
		preloadStats.declined++
		return
	}
	const url = new URL(href, window.location.href)
	if (url.origin !== window.location.origin) return
	enqueuePreload(routeModulesFor(url.pathname))
}
