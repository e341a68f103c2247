import { getConfig } from '../../config.server.ts'

// Requests per token per minute, in a fixed window kept in this process (decision 0093): no
// database write per request. With several web processes a token gets the limit in each.

const WINDOW_MS = 60_000
const windows = new Map<string, { start: number; count: number }>()

export type RateLimitState = {
	limit: number
	remaining: number
	/** seconds until the window resets */
	reset: number
	allowed: boolean
}

export function takeRequest(tokenId: string, now = Date.now()): RateLimitState {
	const limit = getConfig().API_RATE_LIMIT_PER_MINUTE
	let window = windows.get(tokenId)
	if (!window || now - window.start >= WINDOW_MS) {
		// forget the windows that ended, now and then, so the map holds the active tokens only
		if (windows.size > 10_000) {
			for (const [id, w] of windows) if (now - w.start >= WINDOW_MS) windows.delete(id)
		}
		window = { start: now, count: 0 }
		windows.set(tokenId, window)
	}
	window.count++
	const reset = Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000))
	return {
		limit,
		remaining: Math.max(0, limit - window.count),
		reset,
		allowed: window.count <= limit,
	}
}

/** The IETF draft's headers (as Instantly and Smartlead send their X- forms). */
export function rateLimitHeaders(state: RateLimitState, headers: Headers) {
	headers.set('RateLimit-Limit', String(state.limit))
	headers.set('RateLimit-Remaining', String(state.remaining))
	headers.set('RateLimit-Reset', String(state.reset))
	if (!state.allowed) headers.set('Retry-After', String(state.reset))
}
