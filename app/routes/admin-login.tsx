import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { parseWithZod } from '../utils/form-bounds.ts'
import { data, Form, redirect } from 'react-router'
import type { Route } from './+types/admin-login'
import { SubmitButton } from '../components/ui/button.tsx'
import { Field, FormErrors } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import { describeAuthError } from '../services/auth/errors.server.ts'
import { isPlatformStaff } from '../services/auth/profile.server.ts'
import { SignInSchema } from '../services/auth/schemas.ts'
import { hasVerifiedFactor, verifyUrl } from '../services/auth/two-factor.ts'
import { useIsPending } from '../utils/forms.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

const ADMIN_HOME = '/admin-dashboard'

export async function loader({ context }: Route.LoaderArgs) {
	const { account, secondFactorPending } = context.get(requestContext)
	if (account?.platformRole) throw redirect(ADMIN_HOME)
	if (secondFactorPending) throw redirect(verifyUrl(ADMIN_HOME))
	return null
}

export const NOT_ADMIN_MESSAGE = 'This account is not a platform administrator.'

export async function action({ request, context }: Route.ActionArgs) {
	const formData = await readFormData(request)
	const submission = parseWithZod(formData, { schema: SignInSchema })
	if (submission.status !== 'success') {
		return data({ result: submission.reply({ hideFields: ['password'] }) }, { status: 400 })
	}
	const { supabase } = context.get(requestContext)
	const { data: signIn, error } = await supabase.auth.signInWithPassword({
		email: submission.value.email,
		password: submission.value.password,
	})
	if (error || !signIn.user) {
		const failure = error
			? describeAuthError(error)
			: { status: 400, message: 'Invalid email or password.' }
		return data(
			{ result: submission.reply({ hideFields: ['password'], formErrors: [failure.message] }) },
			{ status: failure.status },
		)
	}
	if (!(await isPlatformStaff(signIn.user.id))) {
		// Refuse and end the session just made, so a normal user is not left signed in here.
		await supabase.auth.signOut({ scope: 'local' })
		return data(
			{ result: submission.reply({ hideFields: ['password'], formErrors: [NOT_ADMIN_MESSAGE] }) },
			{ status: 403 },
		)
	}
	if (hasVerifiedFactor(signIn.user)) throw redirect(verifyUrl(ADMIN_HOME))
	return redirectWithSuccess(ADMIN_HOME, 'Signed in as administrator')
}

export default function AdminLogin({ actionData }: Route.ComponentProps) {
	const isPending = useIsPending()
	const [form, fields] = useForm({
		id: 'admin-login',
		lastResult: actionData?.result,
		constraint: getZodConstraint(SignInSchema),
		onValidate: ({ formData }) => parseWithZod(formData, { schema: SignInSchema }),
		shouldRevalidate: 'onInput',
	})
	return (
		<>
			<h1 className="text-2xl font-bold text-slate-900">Admin sign in</h1>
			<p className="mt-1 text-sm text-slate-600">For platform administrators only.</p>
			<Form method="post" className="mt-6 space-y-4" {...getFormProps(form)}>
				<FormErrors id={form.errorId} errors={form.errors} />
				<Field
					label="Email"
					errors={fields.email.errors}
					inputProps={{
						...getInputProps(fields.email, { type: 'email' }),
						autoComplete: 'email',
						autoFocus: true,
					}}
				/>
				<Field
					label="Password"
					errors={fields.password.errors}
					inputProps={{
						...getInputProps(fields.password, { type: 'password' }),
						autoComplete: 'current-password',
					}}
				/>
				<SubmitButton className="w-full" pending={isPending} pendingText="Signing in…">
					Sign in
				</SubmitButton>
			</Form>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Admin sign in')
