// `npm start`: build once if there is no build (or it is older than the sources), then serve.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'

function newestSource(dir: string): number {
	let newest = 0
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name)
		newest = Math.max(newest, entry.isDirectory() ? newestSource(full) : statSync(full).mtimeMs)
	}
	return newest
}

const built = 'build/server/index.js'
const stale =
	!existsSync(built) ||
	statSync(built).mtimeMs <
		Math.max(newestSource('app'), newestSource('public'), statSync('package-lock.json').mtimeMs)
if (stale) {
	console.log('Building the app…')
	execFileSync(process.execPath, ['node_modules/@react-router/dev/bin.cjs', 'build'], {
		stdio: 'inherit',
	})
}
await import('../server.ts')
