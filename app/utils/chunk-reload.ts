/** SPEC.md sections 4 and 9: a stale chunk reloads the page at most once per path within this. */
export const RELOAD_GUARD_MS = 10_000
const STORAGE_KEY = 'ls_chunk_reload'

/** An error from loading a lazily loaded chunk (a file missing after a deploy). */
export function isChunkLoadError(error: unknown) {
	if (!(error instanceof Error)) return false
	return (
		error.name === 'ChunkLoadError' ||
		/Failed to fetch dynamically imported module|error loading dynamically imported module|Importing a module script failed|Unable to preload CSS|Failed to load module script/i.test(
			error.message,
		)
	)
}

function readGuard(): Record<string, number> {
	try {
		const value = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? '{}') as unknown
		return value && typeof value === 'object' ? (value as Record<string, number>) : {}
	} catch {
		return {}
	}
}

/**
 * Reloads the page unless this path was reloaded for the same reason less than
 * RELOAD_GUARD_MS ago (kept in sessionStorage). Returns whether it reloads.
 */
export function reloadOnce(path = window.location.pathname, now = Date.now()) {
	const guard = readGuard()
	const last = guard[path]
	if (typeof last === 'number' && now - last < RELOAD_GUARD_MS) return false
	guard[path] = now
	try {
		sessionStorage.setItem(STORAGE_KEY, JSON.stringify(guard))
	} catch {
		return false // without storage there is no guard: never loop
	}
	window.location.reload()
	return true
}
