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
import type { VerifyStatus } from './statuses.ts'

// One email checked for an enrichment chain's "Verify email" step (issue 35 point 5): the
// account's cached answer (VERIFY_CACHE_DAYS) first, else one request with the account's own
// verification key at the key's shared rate; a real answer is cached for the account, so a
// list verified later (or the chain run again) asks the provider nothing for it.

/** The account's first own verification key's provider (chains use the account's own key). */
export function chainVerifierOf(apiKeyProviders: string[]): VerifierName | undefined {
	return VERIFIERS.find((v) => apiKeyProviders.includes(v) && isVerifier(v))
}

export const NO_VERIFIER_KEY =
	'This chain has a Verify email step: add a MillionVerifier, ZeroBounce or Reacher verification key on the API keys page first.'

/** an answer, or why there is none (`fatal`: the key or the provider's account, not this email) */
export type EmailCheck = { status: VerifyStatus; role: boolean } | { error: string; fatal: boolean }

/** A checker for a run of the account, or null when the account has no verification key. */
export async function emailChecker(accountId: string) {
	let key: { key: string; baseUrl: string | null } | null = null
	let provider: VerifierName | undefined
	for (const name of VERIFIERS) {
		key = await getProviderKey(accountId, name)
		if (key) {
			provider = name
			break
		}
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
		async check(address: string, signal: AbortSignal): Promise<EmailCheck> {
			const email = address.trim().toLowerCase()
			// not an address at all (a finder's free text): invalid, no request
			if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) return { status: 'invalid', role: false }
			const hit = await db
				.selectFrom('email_checks')
				.select(['status', 'role'])
				.where('user_id', '=', accountId)
				.where('email', '=', email)
				.where(
					sql<boolean>`checked_at > now() - make_interval(days => ${config.VERIFY_CACHE_DAYS})`,
				)
				.executeTakeFirst()
			if (hit) return { status: hit.status as VerifyStatus, role: hit.role }
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
				return { status: answer.status, role: answer.role }
			} catch (error) {
				if (error instanceof VerifierError)
					return {
						error: error.message,
						fatal: error.kind === 'key' || error.kind === 'url' || error.kind === 'credits',
					}
				throw error
			}
		},
	}
}

export type EmailChecker = NonNullable<Awaited<ReturnType<typeof emailChecker>>>
