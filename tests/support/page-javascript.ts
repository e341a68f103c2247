import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { gzipSync } from 'node:zlib'

// The JavaScript a page of the production build loads on its own, read from the route
// manifest React Router writes into the client build: the entry with its imports and, for
// each route of the page, its module with its imports. These are the page's
// <link rel="modulepreload"> files; the manifest itself is one more.

type RouteManifest = {
	entry: { module: string; imports: string[] }
	routes: Record<string, { module: string; imports?: string[] }>
}

export type PageFile = { file: string; bytes: number; gzipBytes: number }

/** Libraries only some pages use, each found by a string its code carries. */
export const PAGE_ONLY_LIBRARIES = {
	'matter-js': 'matter-js',
	'posthog-js': 'posthog-js',
	libphonenumber: 'country_calling_codes',
	zod: 'ZodError',
} as const

export function clientBuildDir() {
	return path.resolve(process.env.BUILD_DIR ?? 'build', 'client')
}

function readManifest(clientDir: string) {
	const assets = path.join(clientDir, 'assets')
	const name = readdirSync(assets).find((file) => /^manifest-[\w-]+\.js$/.test(file))
	if (!name) throw new Error(`no route manifest in ${assets}: run npm run build first`)
	const source = readFileSync(path.join(assets, name), 'utf8')
	const json = source.slice(source.indexOf('=') + 1).replace(/;\s*$/, '')
	return { file: `/assets/${name}`, manifest: JSON.parse(json) as RouteManifest }
}

function sizeOf(clientDir: string, file: string): PageFile {
	const content = readFileSync(path.join(clientDir, file))
	return { file, bytes: content.length, gzipBytes: gzipSync(content).length }
}

/** The files a page made of `routeIds` (root first) preloads, and the manifest. */
export function pageJavaScript(routeIds: string[], clientDir = clientBuildDir()) {
	const { file: manifestFile, manifest } = readManifest(clientDir)
	const files = new Set([manifest.entry.module, ...manifest.entry.imports])
	for (const id of routeIds) {
		const route = manifest.routes[id]
		if (!route) throw new Error(`route ${id} is not in the manifest`)
		files.add(route.module)
		for (const file of route.imports ?? []) files.add(file)
	}
	const modules = [...files].map((file) => sizeOf(clientDir, file))
	const manifestSize = sizeOf(clientDir, manifestFile)
	const gzipBytes = modules.reduce((sum, f) => sum + f.gzipBytes, 0)
	return {
		modules,
		manifest: manifestSize,
		gzipBytes,
		/** with the manifest, which the page loads too */
		totalGzipBytes: gzipBytes + manifestSize.gzipBytes,
		librariesFound: (
			Object.keys(PAGE_ONLY_LIBRARIES) as (keyof typeof PAGE_ONLY_LIBRARIES)[]
		).filter((name) =>
			modules.some((f) =>
				readFileSync(path.join(clientDir, f.file), 'utf8').includes(PAGE_ONLY_LIBRARIES[name]),
			),
		),
	}
}

export const SIGNIN_ROUTES = ['root', 'layout-auth', 'signin']

/** Which of PAGE_ONLY_LIBRARIES any chunk of the build carries. */
export function librariesInBuild(clientDir = clientBuildDir()) {
	const assets = path.join(clientDir, 'assets')
	const code = readdirSync(assets)
		.filter((file) => file.endsWith('.js'))
		.map((file) => readFileSync(path.join(assets, file), 'utf8'))
	return (Object.keys(PAGE_ONLY_LIBRARIES) as (keyof typeof PAGE_ONLY_LIBRARIES)[]).filter((name) =>
		code.some((text) => text.includes(PAGE_ONLY_LIBRARIES[name])),
	)
}
