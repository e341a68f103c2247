import { data } from 'react-router'
import { z } from 'zod'
import { getConfig } from '../../config.server.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { redirectWithInfo, redirectWithSuccess } from '../../utils/toast.server.ts'
import {
	confirmEmailChangeWithCode,
	FIRST_OF_TWO,
	getEmailState,
	requestEmailChange,
} from './email-change.server.ts'
import { describeAuthError } from './errors.server.ts'
import { updateProfile } from './profile.server.ts'
import {
	deleteRecoveryCodes,
	flashRecoveryCodes,
	issueRecoveryCodes,
} from './recovery-codes.server.ts'
import {
	ChangeEmailSchema,
	ChangePasswordSchema,
	EmailChangeCodeSchema,
	ProfileSchema,
} from './schemas.ts'
import type { Supabase } from './session.server.ts'
import { TwoFactorSchema } from './two-factor.ts'
import {
	confirmEnrollment,
	disableTwoFactor,
	enrollmentView,
	startEnrollment,
} from './two-factor.server.ts'

// The /settings sections of a user's own sign-in: profile, password, email address and
// two-factor. Each answers its form (told apart by `intent`) as the route's action would:
// 400 with the errors at the form's fields, or a redirect to /settings with a toast.

const ProfileOrPasswordSchema = z.discriminatedUnion('intent', [
	ProfileSchema,
	ChangePasswordSchema,
])

/** The profile and password sections. */
export async function profileOrPasswordAction(
	supabase: Supabase,
	userId: string,
	formData: FormData,
) {
	const submission = parseWithZod(formData, { schema: ProfileOrPasswordSchema })
	const intent = formData.get('intent') === 'password' ? 'password' : 'profile'
	if (submission.status !== 'success') {
		return data(
			{ intent, result: submission.reply({ hideFields: ['password', 'confirmPassword'] }) },
			{ status: 400 },
		)
	}
	const value = submission.value
	if (value.intent === 'profile') {
		await updateProfile(userId, { fullName: value.fullName, company: value.company })
		return redirectWithSuccess('/settings', 'Profile saved')
	}
	const { error } = await supabase.auth.updateUser({ password: value.password })
	if (error) {
		const failure = describeAuthError(error)
		return data(
			{
				intent,
				result: submission.reply({
					hideFields: ['password', 'confirmPassword'],
					fieldErrors: { password: [failure.message] },
				}),
			},
			{ status: failure.status },
		)
	}
	return redirectWithSuccess('/settings', 'Password changed')
}

/**
 * The email section: the auth service mails a link to the new address and (secure email change)
 * to the current one; the address changes once the links are used (/auth/confirm).
 */
export async function emailAction(
	request: Request,
	supabase: Supabase,
	userId: string,
	formData: FormData,
) {
	const intent = 'email' as const
	const submission = parseWithZod(formData, { schema: ChangeEmailSchema })
	if (submission.status !== 'success')
		return data({ intent, result: submission.reply() }, { status: 400 })
	const { email: current } = await getEmailState(userId)
	const fail = (message: string, status = 400) =>
		data({ intent, result: submission.reply({ fieldErrors: { email: [message] } }) }, { status })
	if (submission.value.email === current) return fail('This is already your email address.')
	const error = await requestEmailChange(request, supabase, submission.value.email)
	if (error) {
		if (error.code === 'email_exists') return fail('Another account uses this email address.')
		const failure = describeAuthError(error)
		return fail(failure.message, failure.status)
	}
	const { pending } = await getEmailState(userId)
	return redirectWithSuccess(
		'/settings',
		pending?.bothAddresses
			? `Check both inboxes: open the links we sent to ${current} and ${submission.value.email}.`
			: `Check your inbox: open the link we sent to ${submission.value.email}.`,
	)
}

/** A code from one of the email-change mails: the same effect as its link. */
export async function emailCodeAction(supabase: Supabase, userId: string, formData: FormData) {
	const intent = 'email-code' as const
	const submission = parseWithZod(formData, { schema: EmailChangeCodeSchema })
	if (submission.status !== 'success')
		return data({ intent, result: submission.reply({ hideFields: ['code'] }) }, { status: 400 })
	const outcome = await confirmEmailChangeWithCode(supabase, userId, submission.value.code)
	if (outcome === 'changed') return redirectWithSuccess('/settings', 'Email address changed.')
	if (outcome === 'first-of-two') return redirectWithInfo('/settings', FIRST_OF_TWO)
	const message =
		outcome === 'limited'
			? 'Too many attempts. Wait a few minutes and try again.'
			: 'This code is not right or has expired. Use the latest email.'
	return data(
		{
			intent,
			result: submission.reply({ hideFields: ['code'], fieldErrors: { code: [message] } }),
		},
		{ status: outcome === 'limited' ? 429 : 400 },
	)
}

/** New recovery codes, to /settings, which shows them once. */
async function withNewRecoveryCodes(userId: string, message: string) {
	const codes = await issueRecoveryCodes(userId)
	return redirectWithSuccess('/settings#recovery-codes', message, {
		headers: { 'Set-Cookie': await flashRecoveryCodes(userId, codes) },
	})
}

/**
 * The two-factor section: start the set-up, confirm it with a first code (recovery codes come
 * with it), new recovery codes, turn it off.
 */
export async function twoFactorAction(
	supabase: Supabase,
	account: { user: { id: string }; twoFactorEnabled: boolean },
	formData: FormData,
) {
	const intent = 'two-factor' as const
	const submission = parseWithZod(formData, { schema: TwoFactorSchema })
	if (submission.status !== 'success') {
		const factorId = formData.get('factorId')
		const uri = formData.get('uri')
		const enrollment =
			typeof factorId === 'string' && typeof uri === 'string' && uri.startsWith('otpauth://totp/')
				? enrollmentView(factorId, uri)
				: null
		return data(
			{ intent, result: submission.reply({ hideFields: ['code'] }), enrollment },
			{ status: 400 },
		)
	}
	const value = submission.value
	if (value.intent === 'two-factor-enroll') {
		const enrollment = await startEnrollment(supabase, getConfig().APP_NAME)
		return data({ intent, result: submission.reply({ resetForm: true }), enrollment })
	}
	if (value.intent === 'two-factor-confirm') {
		const failure = await confirmEnrollment(supabase, value.factorId, value.code)
		if (failure)
			return data(
				{
					intent,
					result: submission.reply({
						hideFields: ['code'],
						fieldErrors: { code: [failure.message] },
					}),
					enrollment: enrollmentView(value.factorId, value.uri),
				},
				{ status: failure.status },
			)
		return withNewRecoveryCodes(
			account.user.id,
			'Two-factor authentication is on. Save your recovery codes now: they are shown only once.',
		)
	}
	if (value.intent === 'two-factor-recovery-codes') {
		if (!account.twoFactorEnabled)
			return data(
				{
					intent,
					result: submission.reply({
						formErrors: ['Turn two-factor authentication on first: recovery codes come with it.'],
					}),
					enrollment: null,
				},
				{ status: 400 },
			)
		return withNewRecoveryCodes(
			account.user.id,
			'New recovery codes: the old ones no longer work. Save these now: they are shown only once.',
		)
	}
	const error = await disableTwoFactor(supabase)
	if (error)
		return data(
			{
				intent,
				result: submission.reply({
					formErrors: ['Sign in again with your code to turn two-factor authentication off.'],
				}),
				enrollment: null,
			},
			{ status: 400 },
		)
	await deleteRecoveryCodes(account.user.id)
	return redirectWithSuccess('/settings', 'Two-factor authentication is off')
}
