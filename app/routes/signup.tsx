import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { parseWithZod } from '../utils/form-bounds.ts'
import { data, Form, Link, redirect } from 'react-router'
import type { Route } from './+types/signup'
import { SubmitButton } from '../components/ui/button.tsx'
import { Field, FormErrors } from '../components/ui/field.tsx'
import { getConfig } from '../config.server.ts'
import { requestContext } from '../context.server.ts'
import { authErrorReply } from '../services/auth/errors.server.ts'
import { createProfile } from '../services/auth/profile.server.ts'
import { SignUpSchema } from '../services/auth/schemas.ts'
import { useIsPending } from '../utils/forms.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithInfo, redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

export async function loader({ context }: Route.LoaderArgs) {
	if (context.get(requestContext).account) throw redirect('/')
	return null
}

export async function action({ request, context }: Route.ActionArgs) {
	const formData = await readFormData(request)
	const submission = parseWithZod(formData, { schema: SignUpSchema })
	if (submission.status !== 'success') {
		return data({ result: submission.reply({ hideFields: ['password'] }) }, { status: 400 })
	}
	const { email, password, fullName } = submission.value
	const { supabase } = context.get(requestContext)
	const { data: signUp, error } = await supabase.auth.signUp({
		email,
		password,
		options: {
			data: { full_name: fullName },
			emailRedirectTo: `${getConfig().APP_URL}/auth/confirm?next=/`,
		},
	})
	// On a public APP_URL nobody learns who is registered, even with sign-ups confirmed at once:
	// a registered address gets the answer a new one gets, and its owner a mail (the auth
	// service sends it; decision 0056).
	const hide = !getConfig().localInstall
	if (error) {
		if (hide && REGISTERED.has(error.code ?? '')) return redirectWithInfo('/signin', SIGN_IN_NOW)
		return authErrorReply(submission, error)
	}
	if (!signUp.user) {
		return data(
			{
				result: submission.reply({
					hideFields: ['password'],
					formErrors: ['Could not create the account.'],
				}),
			},
			{ status: 400 },
		)
	}
	await createProfile(signUp.user.id, fullName, { signedIn: Boolean(signUp.session) })
	if (!signUp.session) {
		// The same answer whether or not the address was registered (decision 0023).
		return redirectWithInfo(
			'/signin',
			'Check your inbox: we sent you a link to confirm your email.',
		)
	}
	if (hide) {
		// the new account exists and is confirmed; signing in is the one step both answers share
		await supabase.auth.signOut({ scope: 'local' })
		return redirectWithInfo('/signin', SIGN_IN_NOW)
	}
	return redirectWithSuccess('/', `Welcome to ${getConfig().APP_NAME}!`)
}

/** The auth service's ways of saying the address is taken (a notice went to its owner). */
const REGISTERED = new Set(['user_already_exists', 'email_exists'])

const SIGN_IN_NOW =
	'Sign in with your email and password to continue. If the address already had an account, we emailed it.'

export default function SignUp({ actionData }: Route.ComponentProps) {
	const isPending = useIsPending()
	const [form, fields] = useForm({
		id: 'signup',
		lastResult: actionData?.result,
		constraint: getZodConstraint(SignUpSchema),
		onValidate: ({ formData }) => parseWithZod(formData, { schema: SignUpSchema }),
		shouldRevalidate: 'onInput',
	})
	return (
		<>
			<h1 className="text-2xl font-bold text-slate-900">Create your account</h1>
			<p className="mt-1 text-sm text-slate-600">
				Already have one?{' '}
				<Link to="/signin" className="font-semibold text-indigo-700 hover:underline">
					Sign in
				</Link>
			</p>
			<Form method="post" className="mt-6 space-y-4" {...getFormProps(form)}>
				<FormErrors id={form.errorId} errors={form.errors} />
				<Field
					label="Your name"
					errors={fields.fullName.errors}
					inputProps={{
						...getInputProps(fields.fullName, { type: 'text' }),
						autoComplete: 'name',
						autoFocus: true,
					}}
				/>
				<Field
					label="Work email"
					errors={fields.email.errors}
					inputProps={{ ...getInputProps(fields.email, { type: 'email' }), autoComplete: 'email' }}
				/>
				<Field
					label="Password"
					hint="At least 8 characters, with letters and digits."
					errors={fields.password.errors}
					inputProps={{
						...getInputProps(fields.password, { type: 'password' }),
						autoComplete: 'new-password',
					}}
				/>
				<SubmitButton className="w-full" pending={isPending} pendingText="Creating your account…">
					Create account
				</SubmitButton>
			</Form>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Create your account')
