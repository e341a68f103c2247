import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { parseWithZod } from '../utils/form-bounds.ts'
import { data, Form, redirect, useSearchParams } from 'react-router'
import type { Route } from './+types/signin-verify'
import { SubmitButton } from '../components/ui/button.tsx'
import { Field, FormErrors } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import { SignInCodeSchema } from '../services/auth/two-factor.ts'
import { verifySignInCode } from '../services/auth/two-factor.server.ts'
import { useIsPending } from '../utils/forms.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

/** Only for a password-only session of a user with two-factor on. */
function pendingOnly(context: Route.LoaderArgs['context']) {
	const { account, secondFactorPending } = context.get(requestContext)
	if (account && account.sessionAal === 'aal2') throw redirect('/')
	if (!account && !secondFactorPending) throw redirect('/signin')
}

export async function loader({ context }: Route.LoaderArgs) {
	pendingOnly(context)
	return null
}

export async function action({ request, context }: Route.ActionArgs) {
	pendingOnly(context)
	const submission = parseWithZod(await readFormData(request), { schema: SignInCodeSchema })
	if (submission.status !== 'success')
		return data({ result: submission.reply({ hideFields: ['code'] }) }, { status: 400 })
	const failure = await verifySignInCode(
		context.get(requestContext).supabase,
		submission.value.code,
	)
	if (failure)
		return data(
			{
				result: submission.reply({
					hideFields: ['code'],
					fieldErrors: { code: [failure.message] },
				}),
			},
			{ status: failure.status },
		)
	return redirectWithSuccess(submission.value.redirectTo ?? '/', 'Signed in')
}

export default function SignInVerify({ actionData }: Route.ComponentProps) {
	const [searchParams] = useSearchParams()
	const isPending = useIsPending()
	const [form, fields] = useForm({
		id: 'signin-verify',
		lastResult: actionData?.result,
		constraint: getZodConstraint(SignInCodeSchema),
		onValidate: ({ formData }) => parseWithZod(formData, { schema: SignInCodeSchema }),
		shouldRevalidate: 'onInput',
	})
	return (
		<>
			<h1 className="text-2xl font-bold text-slate-900">Two-factor authentication</h1>
			<p className="mt-1 text-sm text-slate-600">
				Enter the code your authenticator app shows for this account.
			</p>
			<Form method="post" className="mt-6 space-y-4" {...getFormProps(form)}>
				<FormErrors id={form.errorId} errors={form.errors} />
				<input type="hidden" name="redirectTo" value={searchParams.get('redirectTo') ?? ''} />
				<Field
					label="Authentication code"
					errors={fields.code.errors}
					inputProps={{
						...getInputProps(fields.code, { type: 'text' }),
						inputMode: 'numeric',
						autoComplete: 'one-time-code',
						autoFocus: true,
					}}
				/>
				<SubmitButton pending={isPending} pendingText="Checking…">
					Verify
				</SubmitButton>
			</Form>
			<Form method="post" action="/signout" className="mt-4">
				<button type="submit" className="text-sm font-semibold text-indigo-700 hover:underline">
					Cancel and sign out
				</button>
			</Form>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) =>
	pageTitle(matches, 'Two-factor authentication')
