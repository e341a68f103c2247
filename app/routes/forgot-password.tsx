import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { parseWithZod } from '../utils/form-bounds.ts'
import { data, Form, Link } from 'react-router'
import type { Route } from './+types/forgot-password'
import { SubmitButton } from '../components/ui/button.tsx'
import { Field, FormErrors } from '../components/ui/field.tsx'
import { authErrorReply } from '../services/auth/errors.server.ts'
import {
	claimResetRequest,
	releaseResetRequest,
	sendPasswordReset,
} from '../services/auth/password-reset.server.ts'
import { ForgotPasswordSchema } from '../services/auth/schemas.ts'
import { useIsPending } from '../utils/forms.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithInfo } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

export async function action({ request }: Route.ActionArgs) {
	const formData = await readFormData(request)
	const submission = parseWithZod(formData, { schema: ForgotPasswordSchema })
	if (submission.status !== 'success') {
		return data({ result: submission.reply() }, { status: 400 })
	}
	const { email } = submission.value
	const codePage = `/reset-password?email=${encodeURIComponent(email)}`
	// Whether or not the address has an account, a second request within a minute sends nothing
	// and says so: the same true answer for every address (decision 0056).
	if (!(await claimResetRequest(email))) return redirectWithInfo(codePage, ALREADY_SENT)
	const { error } = await sendPasswordReset(request, email).catch(async (thrown: unknown) => {
		await releaseResetRequest(email)
		throw thrown
	})
	if (error) {
		await releaseResetRequest(email)
		// the auth service's own per-address limit: nothing went out, so do not say it did
		if (error.code === 'over_email_send_rate_limit')
			return redirectWithInfo(codePage, NOT_SENT_LIMIT)
		return authErrorReply(submission, error, { hideFields: [] })
	}
	// the next page takes the code
	return redirectWithInfo(codePage, SENT)
}

const SENT =
	'If an account exists for that email, we sent a link to reset your password, and a 6-digit code you can enter here.'
const ALREADY_SENT =
	'No new email was sent: if an account exists for that email, we sent it a reset link and code less than a minute ago. Use them, or ask again in a minute.'
const NOT_SENT_LIMIT =
	'No new email was sent: this address got several emails from us recently. Use the link or code in the latest one, or ask again later.'

export default function ForgotPassword({ actionData }: Route.ComponentProps) {
	const isPending = useIsPending()
	const [form, fields] = useForm({
		id: 'forgot-password',
		lastResult: actionData?.result,
		constraint: getZodConstraint(ForgotPasswordSchema),
		onValidate: ({ formData }) => parseWithZod(formData, { schema: ForgotPasswordSchema }),
		shouldRevalidate: 'onInput',
	})
	return (
		<>
			<h1 className="text-2xl font-bold text-slate-900">Reset your password</h1>
			<p className="mt-1 text-sm text-slate-600">
				Enter your email and we'll send you a link and a code to choose a new password.
			</p>
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
				<div className="flex items-center justify-between gap-4">
					<Link to="/signin" className="text-sm font-semibold text-indigo-700 hover:underline">
						Back to sign in
					</Link>
					<SubmitButton pending={isPending} pendingText="Sending…">
						Send reset link
					</SubmitButton>
				</div>
			</Form>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Reset your password')
