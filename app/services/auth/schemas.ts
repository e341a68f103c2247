import { z } from 'zod'
import { safeRedirect } from '../../utils/safe-redirect.ts'

// Shared by the forms (conform on the client) and the actions (parseWithZod).
export const EmailSchema = z
	.string({ error: 'Enter your email address' })
	.trim()
	.toLowerCase()
	.max(254, 'That email address is too long')
	.pipe(z.email({ error: 'Enter a valid email address' }))

export const PASSWORD_MIN = 8

export const NewPasswordSchema = z
	.string({ error: 'Choose a password' })
	.min(PASSWORD_MIN, `Use at least ${PASSWORD_MIN} characters`)
	.max(72, 'Use at most 72 characters')
	.refine((v) => /[a-zA-Z]/.test(v) && /\d/.test(v), 'Use both letters and digits')

/** A path inside the app to return to (safeRedirect's rules); anything else is undefined. */
export const RedirectToSchema = z
	.string()
	.optional()
	.transform((v) => safeRedirect(v, { fallback: '' }) || undefined)

export const SignInSchema = z.object({
	email: EmailSchema,
	password: z.string({ error: 'Enter your password' }).min(1, 'Enter your password').max(200),
	redirectTo: RedirectToSchema,
})

export const SignUpSchema = z.object({
	fullName: z
		.string({ error: 'Enter your name' })
		.trim()
		.min(1, 'Enter your name')
		.max(100, 'Use at most 100 characters'),
	email: EmailSchema,
	password: NewPasswordSchema,
})

export const ForgotPasswordSchema = z.object({ email: EmailSchema })

export const ResetPasswordSchema = z
	.object({
		password: NewPasswordSchema,
		confirmPassword: z.string({ error: 'Repeat the new password' }),
	})
	.refine((v) => v.password === v.confirmPassword, {
		path: ['confirmPassword'],
		message: 'The passwords do not match',
	})

/** /reset-password without a session: the 6-digit code from the reset mail instead of its link. */
export const ResetWithCodeSchema = z
	.object({
		email: EmailSchema,
		code: z
			.string({ error: 'Enter the 6-digit code from the email' })
			.trim()
			.regex(/^\d{6}$/, 'Enter the 6-digit code from the email'),
		password: NewPasswordSchema,
		confirmPassword: z.string({ error: 'Repeat the new password' }),
	})
	.refine((v) => v.password === v.confirmPassword, {
		path: ['confirmPassword'],
		message: 'The passwords do not match',
	})

export const ProfileSchema = z.object({
	intent: z.literal('profile'),
	fullName: z
		.string({ error: 'Enter your name' })
		.trim()
		.min(1, 'Enter your name')
		.max(100, 'Use at most 100 characters'),
	company: z.string().trim().max(120, 'Use at most 120 characters').optional(),
})

export const ChangePasswordSchema = z
	.object({
		intent: z.literal('password'),
		password: NewPasswordSchema,
		confirmPassword: z.string({ error: 'Repeat the new password' }),
	})
	.refine((v) => v.password === v.confirmPassword, {
		path: ['confirmPassword'],
		message: 'The passwords do not match',
	})

export const ChangeEmailSchema = z.object({
	intent: z.literal('email'),
	email: EmailSchema,
})

const EMAIL_CODE_MESSAGE = 'Enter the 6-digit code from the email'

/** A code from one of the email-change mails, instead of its link. */
export const EmailChangeCodeSchema = z.object({
	intent: z.literal('email-code'),
	code: z
		.string({ error: EMAIL_CODE_MESSAGE })
		.trim()
		.regex(/^\d{6}$/, EMAIL_CODE_MESSAGE),
})
