import { parseWithZod } from '../utils/form-bounds.ts'
import { useEffect, useState } from 'react'
import { data, Form, Link, redirect, useSearchParams } from 'react-router'
import type { Route } from './+types/signin'
import { SubmitButton } from '../components/ui/button.tsx'
import { Field, FormErrors } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import { authErrorReply } from '../services/auth/errors.server.ts'
import { SignInSchema } from '../services/auth/schemas.ts'
import { hasVerifiedFactor, verifyUrl } from '../services/auth/two-factor.ts'
import { loadSignInValidation, signInConstraint } from '../services/auth/sign-in-form.ts'
import { useIsPending } from '../utils/forms.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

export async function loader({ request, context }: Route.LoaderArgs) {
	const { account, secondFactorPending } = context.get(requestContext)
	if (account) throw redirect('/')
	if (secondFactorPending)
		throw redirect(verifyUrl(new URL(request.url).searchParams.get('redirectTo')))
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
	const { data: signedIn, error } = await supabase.auth.signInWithPassword({ email, password })
	if (error) return authErrorReply(submission, error)
	// a verified factor: the password was the first step, the code is the second
	if (hasVerifiedFactor(signedIn.user)) throw redirect(verifyUrl(redirectTo))
	return redirectWithSuccess(redirectTo ?? '/', 'Signed in')
}

type FieldErrors = Record<string, string[] | null>

export default function SignIn({ actionData }: Route.ComponentProps) {
	const [searchParams] = useSearchParams()
	const isPending = useIsPending()
	const result = actionData?.result
	// No conform runtime on this page: its first load has a JavaScript budget
	// (docs/decisions/0030-sign-in-page-javascript-budget.md). The server's reply shows as is;
	// once zod has loaded (after hydration) the same schema checks the form before it is sent.
	const [validate, setValidate] = useState<Awaited<ReturnType<typeof loadSignInValidation>>>()
	const [clientErrors, setClientErrors] = useState<FieldErrors | null>(null)
	useEffect(() => {
		let live = true
		void loadSignInValidation().then((check) => live && setValidate(() => check))
		return () => {
			live = false
		}
	}, [])
	// a form that passes the check is sent, so the server's reply is what shows next
	const errors: FieldErrors = clientErrors ?? result?.error ?? {}
	const check = (form: HTMLFormElement) => {
		if (!validate) return true
		const submission = validate(new FormData(form))
		const next = submission.status === 'success' ? null : (submission.reply().error ?? {})
		setClientErrors(next)
		return next === null
	}
	const initial = (result?.initialValue ?? {}) as Record<string, unknown>
	const field = (name: 'email' | 'password') => ({
		id: `signin-${name}`,
		name,
		required: signInConstraint[name].required,
		defaultValue: name === 'email' && typeof initial.email === 'string' ? initial.email : undefined,
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
			<Form
				method="post"
				id="signin"
				noValidate={validate !== undefined}
				aria-describedby={errors['']?.length ? 'signin-form-error' : undefined}
				className="mt-6 space-y-4"
				onSubmit={(event) => {
					if (!check(event.currentTarget)) event.preventDefault()
				}}
				onInput={(event) => {
					if (clientErrors) check(event.currentTarget)
				}}
			>
				<FormErrors id="signin-form-error" errors={errors['']} />
				<input type="hidden" name="redirectTo" value={searchParams.get('redirectTo') ?? ''} />
				<Field
					label="Email"
					errors={errors.email}
					inputProps={{ ...field('email'), type: 'email', autoComplete: 'email', autoFocus: true }}
				/>
				<Field
					label="Password"
					errors={errors.password}
					inputProps={{ ...field('password'), type: 'password', autoComplete: 'current-password' }}
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
