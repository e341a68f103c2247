// TOTP two-factor authentication for the app's own screens, through supabase-js's auth.mfa API
// (so it works against the embedded service and a Supabase project alike).
import type { AuthError } from '@supabase/supabase-js'
import { qrCodeSvg } from '../../auth-service/totp.server.ts'
import type { Supabase } from './session.server.ts'

export const WRONG_CODE_MESSAGE =
	'That code is not right. Enter the current code from your authenticator app.'

/** What a failed code check means for the person typing it. */
export function describeCodeError(error: AuthError) {
	switch (error.code) {
		case 'mfa_verification_failed':
		case 'mfa_challenge_expired':
			return { status: 400, message: WRONG_CODE_MESSAGE }
		case 'over_request_rate_limit':
			return { status: 429, message: 'Too many attempts. Wait a few minutes and try again.' }
		default:
			return { status: 400, message: 'Something went wrong. Try again in a moment.' }
	}
}

/** Checks a sign-in code against the user's verified TOTP factor; null when it was right. */
export async function verifySignInCode(supabase: Supabase, code: string) {
	const { data, error } = await supabase.auth.mfa.listFactors()
	if (error) throw error
	const factor = data.totp[0]
	if (!factor) return null
	const verified = await supabase.auth.mfa.challengeAndVerify({ factorId: factor.id, code })
	return verified.error ? describeCodeError(verified.error) : null
}

export type Enrollment = { factorId: string; uri: string; secret: string; qrCode: string }

/** The QR code (an SVG data URL) and secret an authenticator app needs, from the factor's URI. */
export function enrollmentView(factorId: string, uri: string): Enrollment {
	const secret = new URL(uri).searchParams.get('secret') ?? ''
	return {
		factorId,
		uri,
		secret,
		qrCode: `data:image/svg+xml;utf8,${encodeURIComponent(qrCodeSvg(uri))}`,
	}
}

/** A new, unverified TOTP factor; set-ups left unfinished before are dropped. */
export async function startEnrollment(supabase: Supabase, issuer: string): Promise<Enrollment> {
	const { data: factors, error: listError } = await supabase.auth.mfa.listFactors()
	if (listError) throw listError
	for (const factor of factors.all.filter((f) => f.status === 'unverified'))
		await supabase.auth.mfa.unenroll({ factorId: factor.id })
	const { data, error } = await supabase.auth.mfa.enroll({ factorType: 'totp', issuer })
	if (error) throw error
	return enrollmentView(data.id, data.totp.uri)
}

/** The first code from the app: the factor becomes verified and this session aal2. */
export async function confirmEnrollment(supabase: Supabase, factorId: string, code: string) {
	const { error } = await supabase.auth.mfa.challengeAndVerify({ factorId, code })
	return error ? describeCodeError(error) : null
}

/** The user's verified factors (status for /settings). */
export async function listVerifiedFactors(supabase: Supabase) {
	const { data, error } = await supabase.auth.mfa.listFactors()
	if (error) throw error
	return data.totp
}

/** Turns two-factor off: removes every factor (needs the aal2 session signing in gave). */
export async function disableTwoFactor(supabase: Supabase) {
	const { data, error } = await supabase.auth.mfa.listFactors()
	if (error) throw error
	for (const factor of data.all) {
		const removed = await supabase.auth.mfa.unenroll({ factorId: factor.id })
		if (removed.error) return removed.error
	}
	return null
}
