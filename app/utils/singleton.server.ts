// One instance per process, even when the same module is loaded twice
// (once by server.ts through Node, once inside the Vite server bundle).
export function singleton<T>(name: string, create: () => T): T {
	const store = globalThis as unknown as { __leadsmith?: Map<string, unknown> }
	store.__leadsmith ??= new Map()
	if (!store.__leadsmith.has(name)) store.__leadsmith.set(name, create())
	return store.__leadsmith.get(name) as T
}

export function resetSingleton(name: string) {
	const store = globalThis as unknown as { __leadsmith?: Map<string, unknown> }
	store.__leadsmith?.delete(name)
}

/** The instance if it was made, without making it. */
export function peekSingleton<T>(name: string): T | undefined {
	const store = globalThis as unknown as { __leadsmith?: Map<string, unknown> }
	return store.__leadsmith?.get(name) as T | undefined
}
