import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { parseWithZod } from '../utils/form-bounds.ts'
import { data, Form, Link } from 'react-router'
import type { Route } from './+types/reset-password'
import { SubmitButton } from '../components/ui/button.tsx'
import { Field, FormErrors } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import { authErrorReply } from '../services/auth/errors.server.ts'
import { ResetPasswordSchema, ResetWithCodeSchema } from '../services/auth/schemas.ts'
import { useIsPending } from '../utils/forms.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithError, redirectWithInfo, redirectWithSuccess } from '../utils/toast.server.ts'
import { hasVerifiedFactor, verifyUrl } from '../services/auth/two-factor.ts'
import { readFormData } from '../utils/form-data.server.ts'

const HIDDEN = ['password', 'confirmPassword']

const TOKEN_HASH = /^[A-Za-z0-9_-]{1,200}$/

const SECOND_FACTOR_FIRST =
	'Enter the code from your authenticator app, then choose your new password.'

/** The code step of signing in, then back here to choose the password. */
const secondFactorStep = () => redirectWithInfo(verifyUrl('/reset-password'), SECOND_FACTOR_FIRST)

// Reached three ways: the emailed link (via /auth/confirm, which only forwards its token hash:
// the token is spent when the visitor continues), signed in for recovery (choose the password),
// or without a session to enter the mailed 6-digit code with the new password.
export async function loader({ request, context }: Route.LoaderArgs) {
	const { account, secondFactorPending } = context.get(requestContext)
	const url = new URL(request.url)
	const tokenHash = url.searchParams.get('token_hash')
	if (tokenHash !== null)
		return data(
			{
				mode: 'confirm' as const,
				tokenHash: TOKEN_HASH.test(tokenHash) ? tokenHash : '',
				email: '',
			},
			// the token is as secret as a password: kept from caches and from other sites' Referer
			// (same-origin, not no-referrer: that makes the form's POST send `Origin: null`, which
			// the origin check refuses)
			{ headers: { 'Cache-Control': 'no-store', 'Referrer-Policy': 'same-origin' } },
		)
	if (account) return { mode: 'link' as const, email: account.user.email, tokenHash: '' }
	// signed in for recovery with the password step only: the second factor comes first
	if (secondFactorPending) throw await secondFactorStep()
	const email = url.searchParams.get('email') ?? ''
	return { mode: 'code' as const, email: email.slice(0, 254), tokenHash: '' }
}

// this page's headers over what the layouts send
export function headers({ parentHeaders, loaderHeaders }: Route.HeadersArgs) {
	const merged = new Headers(parentHeaders)
	loaderHeaders.forEach((value, name) => {
		if (name === 'set-cookie') merged.append(name, value)
		else merged.set(name, value)
	})
	return merged
}

export async function action({ request, context }: Route.ActionArgs) {
	const { supabase, account, secondFactorPending } = context.get(requestContext)
	const formData = await readFormData(request)
	const intent = formData.get('intent')
	if (intent === 'link') {
		// the emailed link, continued: now the token is spent and the visitor signed in for recovery
		const tokenHash = formData.get('tokenHash')
		const verified =
			typeof tokenHash === 'string' && TOKEN_HASH.test(tokenHash)
				? await supabase.auth.verifyOtp({ token_hash: tokenHash, type: 'recovery' })
				: null
		if (!verified || verified.error)
			throw await redirectWithError(
				'/forgot-password',
				'This link is invalid or has expired. Ask for a new one.',
			)
		if (hasVerifiedFactor(verified.data.user)) throw await secondFactorStep()
		return redirectWithSuccess('/reset-password', 'Choose your new password.')
	}
	if (intent === 'code') {
		const submission = parseWithZod(formData, { schema: ResetWithCodeSchema })
		if (submission.status !== 'success') {
			return data({ result: submission.reply({ hideFields: HIDDEN }) }, { status: 400 })
		}
		const { email, code, password } = submission.value
		const verified = await supabase.auth.verifyOtp({ email, token: code, type: 'recovery' })
		if (verified.error) {
			if (verified.error.code === 'otp_expired' || verified.error.status === 403) {
				const result = submission.reply({
					hideFields: HIDDEN,
					fieldErrors: { code: ['This code is wrong or has expired. Ask for a new one.'] },
				})
				return data({ result }, { status: 400 })
			}
			return authErrorReply(submission, verified.error, { hideFields: HIDDEN })
		}
		// two-factor on: the mailed code is the first factor only (GoTrue refuses a password
		// change below aal2); the new password is chosen once the second factor is given
		if (hasVerifiedFactor(verified.data.user)) throw await secondFactorStep()
		const { error } = await supabase.auth.updateUser({ password })
		if (error) return authErrorReply(submission, error, { field: 'password', hideFields: HIDDEN })
		return redirectWithSuccess('/', 'Your password has been changed.')
	}
	if (!account) {
		if (secondFactorPending) throw await secondFactorStep()
		throw await redirectWithError(
			'/forgot-password',
			'Your reset link has expired. Ask for a new one.',
		)
	}
	const submission = parseWithZod(formData, { schema: ResetPasswordSchema })
	if (submission.status !== 'success') {
		return data({ result: submission.reply({ hideFields: HIDDEN }) }, { status: 400 })
	}
	const { error } = await supabase.auth.updateUser({ password: submission.value.password })
	if (error) {
		return authErrorReply(submission, error, { field: 'password', hideFields: HIDDEN })
	}
	return redirectWithSuccess('/', 'Your password has been changed.')
}

/** The emailed link's page: nothing is spent until the visitor continues. */
function ContinueWithLink({ tokenHash }: { tokenHash: string }) {
	const isPending = useIsPending()
	if (!tokenHash)
		return (
			<>
				<h1 className="text-2xl font-bold text-slate-900">This link is not complete</h1>
				<p className="mt-1 text-sm text-slate-600">
					Open the link from the email again, or{' '}
					<Link to="/forgot-password" className="font-semibold text-indigo-700 hover:underline">
						ask for a new one
					</Link>
					.
				</p>
			</>
		)
	return (
		<>
			<h1 className="text-2xl font-bold text-slate-900">Reset your password</h1>
			<p className="mt-1 text-sm text-slate-600">
				Continue to choose a new password. The link then stops working, and so does the code in the
				same email.
			</p>
			<Form method="post" className="mt-6">
				<input type="hidden" name="intent" value="link" />
				<input type="hidden" name="tokenHash" value={tokenHash} />
				<SubmitButton className="w-full" pending={isPending} pendingText="Checking…">
					Continue
				</SubmitButton>
			</Form>
		</>
	)
}

function NewPasswordFields({
	fields,
	autoFocus,
}: {
	fields: {
		password: Parameters<typeof getInputProps>[0]
		confirmPassword: Parameters<typeof getInputProps>[0]
	}
	autoFocus: boolean
}) {
	return (
		<>
			<Field
				label="New password"
				hint="At least 8 characters, with letters and digits."
				errors={fields.password.errors}
				inputProps={{
					...getInputProps(fields.password, { type: 'password' }),
					autoComplete: 'new-password',
					autoFocus,
				}}
			/>
			<Field
				label="Repeat the new password"
				errors={fields.confirmPassword.errors}
				inputProps={{
					...getInputProps(fields.confirmPassword, { type: 'password' }),
					autoComplete: 'new-password',
				}}
			/>
		</>
	)
}

function WithCode({
	email,
	actionData,
}: {
	email: string
	actionData: Route.ComponentProps['actionData']
}) {
	const isPending = useIsPending()
	const [form, fields] = useForm({
		id: 'reset-with-code',
		lastResult: actionData?.result,
		defaultValue: { email },
		constraint: getZodConstraint(ResetWithCodeSchema),
		onValidate: ({ formData }) => parseWithZod(formData, { schema: ResetWithCodeSchema }),
		shouldRevalidate: 'onInput',
	})
	return (
		<>
			<h1 className="text-2xl font-bold text-slate-900">Choose a new password</h1>
			<p className="mt-1 text-sm text-slate-600">
				Open the link in the reset email, or enter the 6-digit code from it here.
			</p>
			<Form method="post" className="mt-6 space-y-4" {...getFormProps(form)}>
				<input type="hidden" name="intent" value="code" />
				<FormErrors id={form.errorId} errors={form.errors} />
				<Field
					label="Email"
					errors={fields.email.errors}
					inputProps={{
						...getInputProps(fields.email, { type: 'email' }),
						autoComplete: 'email',
						autoFocus: !email,
					}}
				/>
				<Field
					label="Code from the email"
					errors={fields.code.errors}
					inputProps={{
						...getInputProps(fields.code, { type: 'text' }),
						inputMode: 'numeric',
						autoComplete: 'one-time-code',
						autoFocus: Boolean(email),
					}}
				/>
				<NewPasswordFields fields={fields} autoFocus={false} />
				<SubmitButton className="w-full" pending={isPending} pendingText="Saving…">
					Save new password
				</SubmitButton>
				<p className="text-sm">
					<Link to="/forgot-password" className="font-semibold text-indigo-700 hover:underline">
						Send a new code
					</Link>
				</p>
			</Form>
		</>
	)
}

export default function ResetPassword({ loaderData, actionData }: Route.ComponentProps) {
	const isPending = useIsPending()
	const [form, fields] = useForm({
		id: 'reset-password',
		lastResult: actionData?.result,
		constraint: getZodConstraint(ResetPasswordSchema),
		onValidate: ({ formData }) => parseWithZod(formData, { schema: ResetPasswordSchema }),
		shouldRevalidate: 'onInput',
	})
	if (loaderData.mode === 'confirm') return <ContinueWithLink tokenHash={loaderData.tokenHash} />
	if (loaderData.mode === 'code')
		return <WithCode email={loaderData.email} actionData={actionData} />
	return (
		<>
			<h1 className="text-2xl font-bold text-slate-900">Choose a new password</h1>
			<p className="mt-1 text-sm text-slate-600">For {loaderData.email}</p>
			<Form method="post" className="mt-6 space-y-4" {...getFormProps(form)}>
				<FormErrors id={form.errorId} errors={form.errors} />
				<NewPasswordFields fields={fields} autoFocus />
				<SubmitButton className="w-full" pending={isPending} pendingText="Saving…">
					Save new password
				</SubmitButton>
			</Form>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Choose a new password')
