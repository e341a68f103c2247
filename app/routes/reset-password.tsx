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
import { redirectWithError, redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

const HIDDEN = ['password', 'confirmPassword']

// Reached through the emailed link (/auth/confirm signs the user in for recovery first), or
// without a session to enter the mailed 6-digit code with the new password.
export async function loader({ request, context }: Route.LoaderArgs) {
	const { account } = context.get(requestContext)
	if (account) return { mode: 'link' as const, email: account.user.email }
	const email = new URL(request.url).searchParams.get('email') ?? ''
	return { mode: 'code' as const, email: email.slice(0, 254) }
}

export async function action({ request, context }: Route.ActionArgs) {
	const { supabase, account } = context.get(requestContext)
	const formData = await readFormData(request)
	if (formData.get('intent') === 'code') {
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
		const { error } = await supabase.auth.updateUser({ password })
		if (error) return authErrorReply(submission, error, { field: 'password', hideFields: HIDDEN })
		return redirectWithSuccess('/', 'Your password has been changed.')
	}
	if (!account) {
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
