// `npm run bench:page-js` (after `npm run build`): per page of the production build, the
// JavaScript it preloads (as bench:signin-js counts it: the modules and the route manifest) and,
// apart, each chunk its modules import dynamically with what that chunk brings beyond the page
// (the design system's enhanced controls: select, menu, tooltip, dialog, tabs; the toasts).
// Whether a dynamic chunk comes at hydration or on first use is the code's choice
// (app/components/ui/enhance.ts; decision 0084), so both columns are printed.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { clientBuildDir, pageJavaScript } from '../tests/support/page-javascript.ts'

const PAGES: Record<string, string[]> = {
	'/signin': ['root', 'layout-auth', 'signin'],
	'/ (dashboard)': ['root', 'layout-default', 'index'],
	'/inboxes': ['root', 'layout-default', 'inboxes'],
	'/url-forward': ['root', 'layout-default', 'url-forward'],
	'/workspaces': ['root', 'layout-default', 'workspaces'],
	'/domains/import': ['root', 'layout-default', 'domains-import'],
	'/lists/:id/enrich': ['root', 'layout-default', 'enrich-list'],
	'/enrichments': ['root', 'layout-default', 'enrichments'],
	'admin user': ['root', 'layout-admin', 'admin-user'],
	'admin plans': ['root', 'layout-admin', 'admin-plans'],
	'admin audit': ['root', 'layout-admin', 'admin-audit'],
}

const clientDir = clientBuildDir()
const gzipped = new Map<string, number>()
function gzipBytes(file: string) {
	let size = gzipped.get(file)
	if (size === undefined) {
		size = gzipSync(readFileSync(path.join(clientDir, file))).length
		gzipped.set(file, size)
	}
	return size
}

/** The chunks `file` imports dynamically, each with the files Vite preloads with it. */
function dynamicImports(file: string) {
	const code = readFileSync(path.join(clientDir, file), 'utf8')
	const deps = /m\.f=\[([^\]]*)\]/
		.exec(code)?.[1]
		?.match(/"[^"]+"/g)
		?.map((s) => `/${s.slice(1, -1)}`)
	const found: { chunk: string; files: string[] }[] = []
	for (const match of code.matchAll(
		/import\(`\.\/([^`]+\.js)`\)(?:,__vite__mapDeps\(\[([\d,]*)\]\))?/g,
	)) {
		const chunk = `/assets/${match[1]}`
		const indexes = match[2] ? match[2].split(',').map(Number) : []
		found.push({ chunk, files: [chunk, ...indexes.map((i) => deps?.[i] ?? '')].filter(Boolean) })
	}
	return found
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`
for (const [page, routes] of Object.entries(PAGES)) {
	const js = pageJavaScript(routes, clientDir)
	const preloaded = new Set(js.modules.map((m) => m.file))
	const lazy = new Map<string, Set<string>>()
	for (const file of preloaded) {
		for (const { chunk, files } of dynamicImports(file)) {
			const base = path.basename(chunk)
			const name = base.startsWith('move-dialog-')
				? 'move-dialog'
				: base.replace(/-[\w-]+\.js$/, '')
			const set = lazy.get(name) ?? new Set<string>()
			for (const f of files) if (!preloaded.has(f)) set.add(f)
			lazy.set(name, set)
		}
	}
	const parts = [...lazy]
		// the design system's chunks (matter-js, posthog and sonner are not the design system's)
		// and the move modal of a row, loaded on first use too (decision 0101)
		.filter(
			([name, files]) => (name.endsWith('.enhanced') || name === 'move-dialog') && files.size > 0,
		)
		.map(([name, files]) => `${name} ${kb([...files].reduce((s, f) => s + gzipBytes(f), 0))}`)
	console.log(
		`${page.padEnd(20)} ${kb(js.totalGzipBytes).padStart(9)} preloaded (${js.modules.length + 1} files)` +
			(parts.length ? `; enhanced controls: ${parts.join(', ')}` : ''),
	)
}
