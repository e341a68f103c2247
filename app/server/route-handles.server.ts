import { matchPath, type ServerBuild } from 'react-router'
import type { ReadWithContext } from '../context.server.ts'

/**
 * What a route module tells the server about itself through its `handle` export, before
 * React Router runs: the server's generic layers (body limits, the page queue) read these
 * declarations, never a path of their own.
 */
export type ServerRouteHandle = {
	/** `upload`: the request body may be as large as UPLOAD_LIMIT_BYTES (multipart only) */
	bodyLimit?: 'upload'
	/** `skip`: its GETs never wait in the page queue (health checks answer while busy) */
	pageQueue?: 'skip'
	/** `none`: answers for the process, whoever asks: no session is read (the probes) */
	session?: 'none'
}

/**
 * What the server finds declared by the route a request matches: its `handle`, and the read its
 * loader asks to be made in the request context's statement (withContextRead), with the route's
 * id (a data request's `_routes` names the loaders it runs by id).
 */
export type RouteDeclarations = ServerRouteHandle & {
	contextRead?: { routeId: string; read: ReadWithContext<unknown> }
}

type Route = ServerBuild['routes'][string] & {}

/** A route's whole path, its layouts' segments included, without slashes at the ends. */
export function fullPathOf(build: ServerBuild, route: Route): string {
	const parent = route.parentId ? build.routes[route.parentId] : undefined
	const own = (route.path ?? '').replace(/^\/+|\/+$/g, '')
	return [parent ? fullPathOf(build, parent) : '', own].filter(Boolean).join('/')
}

/** A request's pathname as React Router matches it: single fetch's `.data` taken off. */
export function routePathOf(pathname: string) {
	if (pathname.endsWith('/_.data')) return pathname.slice(0, -'/_.data'.length) || '/'
	return pathname.replace(/\.data$/, '')
}

/**
 * The declarations of the route a pathname matches, found once per build: only the few
 * routes that declare something are matched against, so an ordinary page costs no match.
 */
export function routeHandles(build: ServerBuild): (pathname: string) => RouteDeclarations {
	const declared: { pattern: string; handle: RouteDeclarations }[] = []
	for (const route of Object.values(build.routes ?? {})) {
		if (!route) continue
		const module = route.module as
			| { handle?: ServerRouteHandle; loader?: { contextRead?: ReadWithContext<unknown> } }
			| undefined
		const handle: RouteDeclarations = { ...module?.handle }
		// a loader made with withContextRead (app/context.server.ts)
		const read = module?.loader?.contextRead
		if (read) handle.contextRead = { routeId: route.id, read }
		if (!handle.bodyLimit && !handle.pageQueue && !handle.session && !handle.contextRead) continue
		declared.push({ pattern: `/${fullPathOf(build, route)}`, handle })
	}
	const none: RouteDeclarations = {}
	return (pathname) => {
		if (declared.length === 0) return none
		const path = routePathOf(pathname)
		for (const { pattern, handle } of declared) if (matchPath(pattern, path)) return handle
		return none
	}
}
