import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'

/** Where the Vite plugin (vite.config.ts) writes the build id. */
export function versionFile() {
	return path.resolve(process.env.BUILD_DIR ?? 'build', 'client', 'version.json')
}

let cached: { key: string; id: string | null; checkedAt: number } | null = null
// Every page carries the id: the file is looked at (a stat) at most once a second.
const CHECK_EVERY_MS = 1000

/**
 * The id of the build being served: read from <BUILD_DIR>/client/version.json, and
 * read again when that file changes (a deploy that swaps the client files), within a second.
 * null without the file (development).
 */
export function currentBuildId(now = Date.now()): string | null {
	if (cached && now - cached.checkedAt < CHECK_EVERY_MS) return cached.id
	const file = versionFile()
	let key: string
	try {
		const stat = statSync(file)
		key = `${stat.mtimeMs}:${stat.size}`
	} catch {
		return null
	}
	if (cached?.key === key) {
		cached.checkedAt = now
		return cached.id
	}
	let id: string | null
	try {
		const parsed = JSON.parse(readFileSync(file, 'utf8')) as { id?: unknown }
		id = typeof parsed.id === 'string' && parsed.id ? parsed.id : null
	} catch {
		id = null
	}
	cached = { key, id, checkedAt: now }
	return id
}
