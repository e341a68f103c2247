import { z } from 'zod'
import { RedirectToSchema } from './schemas.ts'

/** A user (as the auth service returns it) with a verified factor: sign-in needs a code too. */
export function hasVerifiedFactor(user: { factors?: { status: string }[] } | null | undefined) {
	return Boolean(user?.factors?.some((factor) => factor.status === 'verified'))
}

/** The second step of signing in, keeping where the visitor was headed. */
export function verifyUrl(redirectTo: string | null | undefined) {
	return redirectTo
		? `/signin/verify?redirectTo=${encodeURIComponent(redirectTo)}`
		: '/signin/verify'
}

export const CODE_MESSAGE = 'Enter the 6-digit code from your authenticator app'

export const TwoFactorCode = z
	.string({ error: CODE_MESSAGE })
	.trim()
	.regex(/^\d{6}$/, CODE_MESSAGE)

export const SignInCodeSchema = z.object({ code: TwoFactorCode, redirectTo: RedirectToSchema })

export const TwoFactorEnrollSchema = z.object({ intent: z.literal('two-factor-enroll') })

export const TwoFactorConfirmSchema = z.object({
	intent: z.literal('two-factor-confirm'),
	factorId: z.uuid('Start the set-up again'),
	// the otpauth URI of the factor being set up, to show its QR code again after a wrong code
	uri: z.string().startsWith('otpauth://totp/', 'Start the set-up again').max(500),
	code: TwoFactorCode,
})

export const TwoFactorDisableSchema = z.object({ intent: z.literal('two-factor-disable') })

export const RECOVERY_CODE_MESSAGE = 'Enter one of your recovery codes'

/** A recovery code at the sign-in code step, instead of the authenticator's code. */
export const SignInRecoverySchema = z.object({
	intent: z.literal('recovery'),
	recoveryCode: z
		.string({ error: RECOVERY_CODE_MESSAGE })
		.trim()
		.min(1, RECOVERY_CODE_MESSAGE)
		.max(40, 'A recovery code has 10 letters and digits'),
})

export const TwoFactorRecoveryCodesSchema = z.object({
	intent: z.literal('two-factor-recovery-codes'),
})

/** The two-factor section of /settings: one form whose intent says which step it is. */
export const TwoFactorSchema = z.discriminatedUnion('intent', [
	TwoFactorEnrollSchema,
	TwoFactorConfirmSchema,
	TwoFactorDisableSchema,
	TwoFactorRecoveryCodesSchema,
])
