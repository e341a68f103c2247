import { getConfig } from '../../config.server.ts'
import {
	VERIFIERS,
	type Verifier,
	type VerifierName,
} from '../../integrations/email-verifiers.server.ts'
import { createMillionVerifierClient } from '../../integrations/millionverifier.server.ts'
import { createReacherClient } from '../../integrations/reacher.server.ts'
import { createZeroBounceClient } from '../../integrations/zerobounce.server.ts'

export const isVerifier = (provider: string): provider is VerifierName =>
	(VERIFIERS as readonly string[]).includes(provider)

/**
 * The client of an email verification provider for a key: an account's own (its Reacher base
 * URL, when it set one, goes through the outbound guard) or the platform's (no base URL).
 */
export function verifierFor(
	provider: VerifierName,
	key: { key: string; baseUrl?: string | null },
	options: { retryDelayMs?: number } = {},
): Verifier {
	const config = getConfig()
	if (provider === 'millionverifier')
		return createMillionVerifierClient({
			baseUrl: config.MILLIONVERIFIER_BASE_URL,
			bulkUrl: config.MILLIONVERIFIER_BULK_URL,
			apiKey: key.key,
			checkTimeoutSeconds: config.MILLIONVERIFIER_TIMEOUT_SECONDS,
			retryDelayMs: options.retryDelayMs ?? 300,
		})
	if (provider === 'zerobounce')
		return createZeroBounceClient({
			baseUrl: config.ZEROBOUNCE_BASE_URL,
			bulkUrl: config.ZEROBOUNCE_BULK_URL,
			apiKey: key.key,
			batchSize: config.ZEROBOUNCE_BATCH_SIZE,
			retryDelayMs: options.retryDelayMs ?? 300,
		})
	return createReacherClient({
		baseUrl: key.baseUrl || config.REACHER_BASE_URL,
		apiKey: key.key,
		userUrl: Boolean(key.baseUrl),
		retryDelayMs: options.retryDelayMs ?? 300,
	})
}

/** Requests per second a key of this provider may make (its documented limit, configurable). */
export function requestsPerSecond(provider: VerifierName) {
	const config = getConfig()
	if (provider === 'millionverifier') return config.MILLIONVERIFIER_RATE_PER_SECOND
	if (provider === 'zerobounce') return config.ZEROBOUNCE_BATCH_PER_MINUTE / 60
	return config.REACHER_RATE_PER_SECOND
}
