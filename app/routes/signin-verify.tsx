import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { parseWithZod } from '../utils/form-bounds.ts'
import { data, Form, redirect, useSearchParams } from 'react-router'
import type { Route } from './+types/signin-verify'
import { SubmitButton } from '../components/ui/button.tsx'
import { Field, FormErrors } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import { SignInCodeSchema, SignInRecoverySchema } from '../services/auth/two-factor.ts'
import { recoverWithCode } from '../services/auth/recovery-codes.server.ts'
import { verifySignInCode } from '../services/auth/two-factor.server.ts'
import { useIsPending } from '../utils/forms.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithInfo, redirectWithSuccess } from '../utils/toast.server.ts'
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

/** A recovery code instead of the lost authenticator: in, with two-factor off to set up again. */
async function recoveryAction(context: Route.ActionArgs['context'], formData: FormData) {
	const submission = parseWithZod(formData, { schema: SignInRecoverySchema })
	if (submission.status !== 'success')
		return data(
			{ intent: 'recovery' as const, result: submission.reply({ hideFields: ['recoveryCode'] }) },
			{ status: 400 },
		)
	const { data: user, error } = await context.get(requestContext).supabase.auth.getUser()
	if (error || !user.user) throw redirect('/signin')
	if (!(await recoverWithCode(user.user.id, submission.value.recoveryCode)))
		return data(
			{
				intent: 'recovery' as const,
				result: submission.reply({
					hideFields: ['recoveryCode'],
					fieldErrors: {
						recoveryCode: ['This recovery code is not right, or it was used already.'],
					},
				}),
			},
			{ status: 400 },
		)
	return redirectWithInfo(
		'/settings#two-factor-authentication',
		'You signed in with a recovery code, and two-factor authentication is now off. Set it up again with your new phone: you get new recovery codes.',
	)
}

export async function action({ request, context }: Route.ActionArgs) {
	pendingOnly(context)
	const formData = await readFormData(request)
	if (formData.get('intent') === 'recovery') return recoveryAction(context, formData)
	const submission = parseWithZod(formData, { schema: SignInCodeSchema })
	if (submission.status !== 'success')
		return data(
			{ intent: 'code' as const, result: submission.reply({ hideFields: ['code'] }) },
			{ status: 400 },
		)
	const failure = await verifySignInCode(
		context.get(requestContext).supabase,
		submission.value.code,
	)
	if (failure)
		return data(
			{
				intent: 'code' as const,
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
	const recovering = useIsPending('recovery')
	const isPending = useIsPending() && !recovering
	const [form, fields] = useForm({
		id: 'signin-verify',
		lastResult: actionData?.intent === 'code' ? actionData.result : undefined,
		constraint: getZodConstraint(SignInCodeSchema),
		onValidate: ({ formData }) => parseWithZod(formData, { schema: SignInCodeSchema }),
		shouldRevalidate: 'onInput',
	})
	const [recoveryForm, recoveryFields] = useForm({
		id: 'signin-recovery',
		lastResult: actionData?.intent === 'recovery' ? actionData.result : undefined,
		constraint: getZodConstraint(SignInRecoverySchema),
		onValidate: ({ formData }) => parseWithZod(formData, { schema: SignInRecoverySchema }),
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
			<details
				className="mt-6 border-t border-slate-200 pt-4"
				open={actionData?.intent === 'recovery'}
			>
				<summary className="cursor-pointer text-sm font-semibold text-indigo-700">
					Lost your phone? Use a recovery code
				</summary>
				<Form method="post" className="mt-4 space-y-4" {...getFormProps(recoveryForm)}>
					<input type="hidden" name="intent" value="recovery" />
					<FormErrors id={recoveryForm.errorId} errors={recoveryForm.errors} />
					<Field
						label="Recovery code"
						hint="One of the codes you saved when you turned two-factor on. Two-factor then turns off, so you can set it up on your new phone."
						errors={recoveryFields.recoveryCode.errors}
						inputProps={{
							...getInputProps(recoveryFields.recoveryCode, { type: 'text' }),
							autoComplete: 'off',
							spellCheck: false,
						}}
					/>
					<SubmitButton variant="secondary" pending={recovering} pendingText="Checking…">
						Use recovery code
					</SubmitButton>
				</Form>
			</details>
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
