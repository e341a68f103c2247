/**
 * A provider's answer that says "slow down": our integrations' errors carry these. `resumeAt`:
 * a spent quota window (Apollo's hour or day) that is not waited out inside the job: the job
 * is put back in the queue until then (decision 0077).
 */
type RateLimited = { kind: string; retryAfterSeconds?: number; resumeAt?: Date }

export function isRateLimited(error: unknown): error is RateLimited {
	return Boolean(
		error && typeof error === 'object' && (error as RateLimited).kind === 'rate-limited',
	)
}

/**
 * Waits ms, or until the signal aborts. The listener goes when the wait ends: a job sleeps on
 * its one signal for each rate-limit slot, and listeners left behind made every new one slower
 * to add (the verify job's CPU per email grew with the run: decision 0106).
 */
export const sleep = (ms: number, signal?: AbortSignal) =>
	new Promise<void>((resolve) => {
		const done = () => {
			clearTimeout(timer)
			signal?.removeEventListener('abort', done)
			resolve()
		}
		const timer = setTimeout(done, ms)
		signal?.addEventListener('abort', done, { once: true })
	})

/**
 * Retries a rate-limited call in place, honouring Retry-After (else backing off
 * 2, 4, 8 s), before giving up to the job's own retries. A spent window (`resumeAt`) is
 * thrown at once: the job waits for it in the queue, not here.
 */
export async function patiently<T>(
	call: () => Promise<T>,
	signal: AbortSignal,
	tries = 4,
): Promise<T> {
	for (let attempt = 1; ; attempt++) {
		try {
			return await call()
		} catch (error) {
			if (!isRateLimited(error) || error.resumeAt || attempt >= tries || signal.aborted) throw error
			await sleep((error.retryAfterSeconds ?? 2 ** attempt) * 1000, signal)
		}
	}
}
