import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'

/** Where the Vite plugin (vite.config.ts) writes the build id. */
export function versionFile() {
	return path.resolve(process.env.BUILD_DIR ?? 'build', 'client', 'version.json')
}

let cached: { key: string; id: string | null } | null = null

/**
 * The id of the build being served: read from <BUILD_DIR>/client/version.json, and
 * read again whenever that file changes (a deploy that swaps the client files).
 * null without the file (development).
 */
export function currentBuildId(): string | null {
	const file = versionFile()
	let key: string
	try {
		const stat = statSync(file)
		key = `${stat.mtimeMs}:${stat.size}`
	} catch {
		return null
	}
	if (cached?.key === key) return cached.id
	let id: string | null
	try {
		const parsed = JSON.parse(readFileSync(file, 'utf8')) as { id?: unknown }
		id = typeof parsed.id === 'string' && parsed.id ? parsed.id : null
	} catch {
		id = null
	}
	cached = { key, id }
	return id
}
