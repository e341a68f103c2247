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

export const sleep = (ms: number, signal?: AbortSignal) =>
	new Promise<void>((resolve) => {
		const timer = setTimeout(resolve, ms)
		signal?.addEventListener('abort', () => {
			clearTimeout(timer)
			resolve()
		})
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
