// The web and worker processes' memory limits (decision 0029). apply-memory-limits.server.ts
// applies them, so every way of starting them (`npm start`, Docker, `node server.ts`, the
// bench, the tests) runs with the same limits.
//
// Both limits must be in place before the process starts, so when one is missing the process
// replaces itself (process.execve: same pid, signals and exit code unchanged) with them set.
// An operator's own --max-semi-space-size (argv or NODE_OPTIONS) or MALLOC_ARENA_MAX wins.

/**
 * V8's young generation: at most 2 × 8 MB semi-spaces (Node 24 grows them to 64 MB each). With
 * 16 MB the web process peaked at 292 MB under `npm run bench`, with 8 MB at 277 MB, for the
 * same requests per second against the ceiling (decision 0055).
 */
export const SEMI_SPACE_MB = 8
/** glibc malloc: 2 arenas, not 8 per core, so freed native memory is reused, not kept aside. */
export const MALLOC_ARENAS = 2

/**
 * V8's old generation grows to 1.5 × what survived the last full collection before the next
 * one (by default up to 4 ×): under load, garbage promoted from slow requests made the old
 * space 180 MB over a live set of 65 MB (decision 0033). Not settable in NODE_OPTIONS.
 */
export const HEAP_GROWING_PERCENT = 50

export function missingMemoryLimits(
	execArgv: readonly string[],
	env: NodeJS.ProcessEnv,
): { flags: string[]; env: Record<string, string> } {
	const given = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)]
	const sets = (flag: string) => given.some((arg) => arg.startsWith(flag))
	return {
		// not --optimize-for-size: it also holds V8's optimising compiler back, and the run with
		// it served less than half the requests per second (decision 0029)
		flags: [
			...(sets('--max-semi-space-size') ? [] : [`--max-semi-space-size=${SEMI_SPACE_MB}`]),
			...(sets('--heap-growing-percent') ? [] : [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]),
		],
		env: env.MALLOC_ARENA_MAX ? {} : { MALLOC_ARENA_MAX: String(MALLOC_ARENAS) },
	}
}
