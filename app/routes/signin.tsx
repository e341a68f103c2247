import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { data, Form, Link, redirect, useSearchParams } from 'react-router'
import type { Route } from './+types/signin'
import { SubmitButton } from '../components/ui/button.tsx'
import { Field, FormErrors } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import { authErrorReply } from '../services/auth/errors.server.ts'
import { SignInSchema } from '../services/auth/schemas.ts'
import { useIsPending } from '../utils/forms.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

export async function loader({ context }: Route.LoaderArgs) {
	if (context.get(requestContext).account) throw redirect('/')
	return null
}

export async function action({ request, context }: Route.ActionArgs) {
	const formData = await readFormData(request)
	const submission = parseWithZod(formData, { schema: SignInSchema })
	if (submission.status !== 'success') {
		return data({ result: submission.reply({ hideFields: ['password'] }) }, { status: 400 })
	}
	const { email, password, redirectTo } = submission.value
	const { supabase } = context.get(requestContext)
	const { error } = await supabase.auth.signInWithPassword({ email, password })
	if (error) return authErrorReply(submission, error)
	return redirectWithSuccess(redirectTo ?? '/', 'Signed in')
}

export default function SignIn({ actionData }: Route.ComponentProps) {
	const [searchParams] = useSearchParams()
	const isPending = useIsPending()
	const [form, fields] = useForm({
		id: 'signin',
		lastResult: actionData?.result,
		constraint: getZodConstraint(SignInSchema),
		onValidate: ({ formData }) => parseWithZod(formData, { schema: SignInSchema }),
		shouldRevalidate: 'onInput',
	})
	return (
		<>
			<h1 className="text-2xl font-bold text-slate-900">Sign in</h1>
			<p className="mt-1 text-sm text-slate-600">
				New here?{' '}
				<Link to="/signup" className="font-semibold text-indigo-700 hover:underline">
					Create an account
				</Link>
			</p>
			<Form method="post" className="mt-6 space-y-4" {...getFormProps(form)}>
				<FormErrors id={form.errorId} errors={form.errors} />
				<input type="hidden" name="redirectTo" value={searchParams.get('redirectTo') ?? ''} />
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
				<div className="flex items-center justify-between gap-4">
					<Link
						to="/forgot-password"
						className="text-sm font-semibold text-indigo-700 hover:underline"
					>
						Forgot your password?
					</Link>
					<SubmitButton pending={isPending} pendingText="Signing in…">
						Sign in
					</SubmitButton>
				</div>
			</Form>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Sign in')
