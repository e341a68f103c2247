import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import { getConfig } from '../../config.server.ts'
import {
	VERIFIER_LABELS,
	VERIFIERS,
	VerifierError,
	type VerifierName,
} from '../../integrations/email-verifiers.server.ts'
import { patiently } from '../../utils/patience.server.ts'
import { getProviderKey } from '../api-keys/get-provider-key.server.ts'
import { isVerifier, requestsPerSecond, verifierFor } from '../api-keys/verifier-for.server.ts'
import { providerKeyId, takeSlot } from '../enrichments/rate-limit.server.ts'
import { CHARGED_STATUSES, type VerifyStatus } from './statuses.ts'

// One email checked for an enrichment chain's "Verify email" step (issue 35 point 5): the
// account's cached answer (VERIFY_CACHE_DAYS) first, else one request with the account's own
// verification key, or the platform's (VERIFY_PROVIDER) paid with credits when the account has
// none and the run is paid with credits (decision 0099), at the key's shared rate; a real
// answer is cached for the account, so a list verified later (or the chain run again) asks the
// provider nothing for it. With the platform's key a fresh definitive answer (valid, invalid,
// disposable) is `charged`; cached answers, unknown, catch-all, risky and failures are not.

/** The account's first own verification key's provider (chains use the account's own key). */
export function chainVerifierOf(apiKeyProviders: string[]): VerifierName | undefined {
	return VERIFIERS.find((v) => apiKeyProviders.includes(v) && isVerifier(v))
}

export const NO_VERIFIER_KEY =
	'This chain has a Verify email step: add a MillionVerifier, ZeroBounce or Reacher verification key on the API keys page first, or pay with credits.'

/**
 * an answer (`charged`: a credit for it, the platform's key), or why there is none (`fatal`:
 * the key or the provider's account, not this email)
 */
export type EmailCheck =
	{ status: VerifyStatus; role: boolean; charged: boolean } | { error: string; fatal: boolean }

/** The platform's verification key, when configured (VERIFY_PROVIDER's). */
export function platformVerifier(): { provider: VerifierName; key: string } | null {
	const config = getConfig()
	const provider = config.VERIFY_PROVIDER
	const key =
		provider === 'millionverifier'
			? config.MILLIONVERIFIER_API_KEY
			: provider === 'zerobounce'
				? config.ZEROBOUNCE_API_KEY
				: config.REACHER_API_KEY
	return key ? { provider, key } : null
}

/**
 * A checker for a run of the account: its own verification key, else (`paid`) the platform's;
 * null when there is neither.
 */
export async function emailChecker(accountId: string, { paid = false } = {}) {
	let key: { key: string; baseUrl: string | null } | null = null
	let provider: VerifierName | undefined
	for (const name of VERIFIERS) {
		key = await getProviderKey(accountId, name)
		if (key) {
			provider = name
			break
		}
	}
	let charging = false
	const platform = paid && !key ? platformVerifier() : null
	if (platform) {
		key = { key: platform.key, baseUrl: null }
		provider = platform.provider
		charging = true
	}
	if (!key || !provider) return null
	const config = getConfig()
	const verifier = verifierFor(provider, key)
	const base =
		key.baseUrl ??
		(provider === 'millionverifier'
			? config.MILLIONVERIFIER_BASE_URL
			: provider === 'zerobounce'
				? config.ZEROBOUNCE_BULK_URL
				: config.REACHER_BASE_URL)
	const keyId = providerKeyId({ baseUrl: base, apiKey: key.key })
	const perSecond = requestsPerSecond(provider)
	const label = VERIFIER_LABELS[provider]
	return {
		provider,
		/** answers cost credits (the platform's key) */
		charging,
		async check(address: string, signal: AbortSignal): Promise<EmailCheck> {
			const email = address.trim().toLowerCase()
			// not an address at all (a finder's free text): invalid, no request
			if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
				return { status: 'invalid', role: false, charged: false }
			const hit = await db
				.selectFrom('email_checks')
				.select(['status', 'role'])
				.where('user_id', '=', accountId)
				.where('email', '=', email)
				.where(
					sql<boolean>`checked_at > now() - make_interval(days => ${config.VERIFY_CACHE_DAYS})`,
				)
				.executeTakeFirst()
			if (hit) return { status: hit.status as VerifyStatus, role: hit.role, charged: false }
			try {
				const [answer] = await patiently(async () => {
					await takeSlot(keyId, perSecond, signal)
					return verifier.verify([email], signal)
				}, signal)
				if (!answer) return { error: `${label} gave no answer for this email.`, fatal: false }
				if (answer.status !== 'unknown')
					await db
						.insertInto('email_checks')
						.values({
							user_id: accountId,
							email,
							provider,
							status: answer.status,
							role: answer.role,
							raw: JSON.stringify(answer.raw ?? null),
						})
						.onConflict((oc) =>
							oc.columns(['user_id', 'email']).doUpdateSet({
								provider,
								status: answer.status,
								role: answer.role,
								raw: JSON.stringify(answer.raw ?? null),
								checked_at: sql`now()`,
							}),
						)
						.execute()
				return {
					status: answer.status,
					role: answer.role,
					charged: charging && CHARGED_STATUSES.includes(answer.status),
				}
			} catch (error) {
				if (error instanceof VerifierError)
					return {
						// the platform's provider account, not the person's: say what it means for them
						error:
							charging && (error.kind === 'credits' || error.kind === 'key')
								? `Email verification is not available right now (${error.message}). The emails not checked were not charged; run it again later.`
								: error.message,
						fatal: error.kind === 'key' || error.kind === 'url' || error.kind === 'credits',
					}
				throw error
			}
		},
	}
}

export type EmailChecker = NonNullable<Awaited<ReturnType<typeof emailChecker>>>
