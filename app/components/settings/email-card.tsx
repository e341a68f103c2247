import { getFormProps, getInputProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import type { EmailChange } from '../../services/auth/email-change.server.ts'
import { ChangeEmailSchema, EmailChangeCodeSchema } from '../../services/auth/schemas.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { useIsPending } from '../../utils/forms.ts'
import { SubmitButton } from '../ui/button.tsx'
import { Card } from '../ui/card.tsx'
import { Field, FormErrors } from '../ui/field.tsx'

/** The address, a pending change and how far its confirmation got, and the form to change it. */
export function EmailCard({
	email,
	pending,
	bothAddresses,
	result,
	codeResult,
}: {
	email: string
	pending: EmailChange | null
	bothAddresses: boolean
	result: SubmissionResult<string[]> | undefined
	codeResult: SubmissionResult<string[]> | undefined
}) {
	const saving = useIsPending('email')
	const confirming = useIsPending('email-code')
	const [codeForm, codeFields] = useForm({
		id: 'email-code',
		lastResult: codeResult,
		constraint: getZodConstraint(EmailChangeCodeSchema),
		onValidate: ({ formData }) => parseWithZod(formData, { schema: EmailChangeCodeSchema }),
		shouldRevalidate: 'onInput',
	})
	const [form, fields] = useForm({
		id: 'email',
		lastResult: result,
		constraint: getZodConstraint(ChangeEmailSchema),
		onValidate: ({ formData }) => parseWithZod(formData, { schema: ChangeEmailSchema }),
		shouldRevalidate: 'onInput',
	})
	const state = (waiting: boolean) => (waiting ? 'waiting for its link' : 'confirmed')
	return (
		<Card>
			<h2 className="text-lg font-semibold">Email address</h2>
			<p className="mt-2 text-slate-700 wrap-anywhere">
				You sign in with <strong>{email}</strong>.
			</p>
			{pending ? (
				<div
					role="status"
					className="mt-4 rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200 wrap-anywhere"
				>
					<p className="font-medium">Change to {pending.newEmail} not confirmed yet</p>
					<p className="mt-1">
						{pending.bothAddresses
							? 'Open the links we sent to both addresses: your email address changes once both are used.'
							: `Open the link we sent to ${pending.newEmail}: your email address changes once it is used.`}
					</p>
					<ul className="mt-2 list-disc space-y-0.5 pl-5">
						{pending.bothAddresses ? (
							<li>
								{email}: {state(pending.waitingForCurrent)}
							</li>
						) : null}
						<li>
							{pending.newEmail}: {state(pending.waitingForNew)}
						</li>
					</ul>
				</div>
			) : null}
			{pending ? (
				<Form method="post" className="mt-4 space-y-4" {...getFormProps(codeForm)}>
					<input type="hidden" name="intent" value="email-code" />
					<FormErrors id={codeForm.errorId} errors={codeForm.errors} />
					<Field
						label="Code from the email"
						hint="Each email also has a 6-digit code: enter it here instead of opening the link."
						errors={codeFields.code.errors}
						inputProps={{
							...getInputProps(codeFields.code, { type: 'text' }),
							inputMode: 'numeric',
							autoComplete: 'one-time-code',
						}}
					/>
					<SubmitButton variant="secondary" pending={confirming} pendingText="Checking…">
						Confirm with code
					</SubmitButton>
				</Form>
			) : null}
			<Form method="post" className="mt-4 space-y-4" {...getFormProps(form)}>
				<input type="hidden" name="intent" value="email" />
				<FormErrors id={form.errorId} errors={form.errors} />
				<Field
					label="New email address"
					hint={
						bothAddresses
							? 'We email a link to the new address and one to your current address: the change takes effect once both are used.'
							: 'We email a link to the new address: the change takes effect once it is used.'
					}
					errors={fields.email.errors}
					inputProps={{
						...getInputProps(fields.email, { type: 'email' }),
						autoComplete: 'email',
					}}
				/>
				<SubmitButton pending={saving} pendingText="Sending…">
					Change email address
				</SubmitButton>
			</Form>
		</Card>
	)
}
