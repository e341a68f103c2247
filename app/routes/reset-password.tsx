import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { data, Form } from 'react-router'
import type { Route } from './+types/reset-password'
import { SubmitButton } from '../components/ui/button.tsx'
import { Field, FormErrors } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import { authErrorReply } from '../services/auth/errors.server.ts'
import { ResetPasswordSchema } from '../services/auth/schemas.ts'
import { useIsPending } from '../utils/forms.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithError, redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

// Reached through the emailed link (/auth/confirm signs the user in for recovery first).
export async function loader({ context }: Route.LoaderArgs) {
	const { account } = context.get(requestContext)
	if (!account) {
		throw await redirectWithError(
			'/forgot-password',
			'Open the link from your reset email to choose a new password, or ask for a new link.',
		)
	}
	return { email: account.user.email }
}

export async function action({ request, context }: Route.ActionArgs) {
	const { supabase, account } = context.get(requestContext)
	if (!account) {
		throw await redirectWithError(
			'/forgot-password',
			'Your reset link has expired. Ask for a new one.',
		)
	}
	const formData = await readFormData(request)
	const submission = parseWithZod(formData, { schema: ResetPasswordSchema })
	if (submission.status !== 'success') {
		return data(
			{ result: submission.reply({ hideFields: ['password', 'confirmPassword'] }) },
			{ status: 400 },
		)
	}
	const { error } = await supabase.auth.updateUser({ password: submission.value.password })
	if (error) {
		return authErrorReply(submission, error, {
			field: 'password',
			hideFields: ['password', 'confirmPassword'],
		})
	}
	return redirectWithSuccess('/', 'Your password has been changed.')
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
	return (
		<>
			<h1 className="text-2xl font-bold text-slate-900">Choose a new password</h1>
			<p className="mt-1 text-sm text-slate-600">For {loaderData.email}</p>
			<Form method="post" className="mt-6 space-y-4" {...getFormProps(form)}>
				<FormErrors id={form.errorId} errors={form.errors} />
				<Field
					label="New password"
					hint="At least 8 characters, with letters and digits."
					errors={fields.password.errors}
					inputProps={{
						...getInputProps(fields.password, { type: 'password' }),
						autoComplete: 'new-password',
						autoFocus: true,
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
				<SubmitButton className="w-full" pending={isPending} pendingText="Saving…">
					Save new password
				</SubmitButton>
			</Form>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Choose a new password')
