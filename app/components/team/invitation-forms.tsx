import {
	getFormProps,
	getInputProps,
	useForm,
	type FieldMetadata,
	type FormMetadata,
	type SubmissionResult,
} from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import type { ReactNode } from 'react'
import { Form, useNavigation } from 'react-router'
import { AcceptSignInSchema, AcceptSignUpSchema } from '../../services/team/schemas.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { SubmitButton } from '../ui/button.tsx'
import { Field, FormErrors } from '../ui/field.tsx'

// The forms of /accept-invitation: a signed-out invitee signs in or signs up (with the invited
// address) and joins in one step; a signed-in one accepts, or signs out of another account.

export type InvitationIntent = 'accept' | 'signin' | 'signup' | 'signout'

/** What the page's action answered: the form it was for, with its errors. */
export type InvitationActionData =
	{ intent: InvitationIntent; result: SubmissionResult<string[]> } | undefined

function usePending(intent: InvitationIntent) {
	const navigation = useNavigation()
	return navigation.state !== 'idle' && navigation.formData?.get('intent') === intent
}

/** A form about the invitation: its intent and token, its errors, its fields and its button. */
function InvitationForm<Schema extends Record<string, unknown>>({
	form,
	intent,
	token,
	heading,
	submit,
	pendingText,
	children,
}: {
	form: FormMetadata<Schema, string[]>
	intent: InvitationIntent
	token: string
	heading?: string
	submit: string
	pendingText?: string
	children?: ReactNode
}) {
	const pending = usePending(intent)
	return (
		<Form method="post" className="space-y-4" {...getFormProps(form)}>
			{heading ? <h2 className="text-lg font-semibold text-slate-900">{heading}</h2> : null}
			<input type="hidden" name="intent" value={intent} />
			<input type="hidden" name="token" value={token} />
			<FormErrors id={form.errorId} errors={form.errors} />
			{children}
			<SubmitButton className="w-full" pending={pending} pendingText={pendingText}>
				{submit}
			</SubmitButton>
		</Form>
	)
}

/** The invited address: shown, sent, not changed. */
function InvitedEmailField({
	label,
	hint,
	field,
}: {
	label: string
	hint?: string
	field: FieldMetadata<string>
}) {
	return (
		<Field
			label={label}
			hint={hint}
			errors={field.errors}
			inputProps={{
				...getInputProps(field, { type: 'email' }),
				readOnly: true,
				autoComplete: 'email',
			}}
		/>
	)
}

/** A signed-out invitee's forms: the token, and the invited address they must use. */
type InviteeFormProps = { token: string; email: string; actionData: InvitationActionData }

const FORM_TEXT = {
	signin: {
		heading: 'I have an account',
		submit: 'Sign in and accept',
		pendingText: 'Signing in…',
	},
	signup: {
		heading: 'I am new here',
		submit: 'Create account and accept',
		pendingText: 'Creating your account…',
	},
} as const

export function SignInForm({ token, email, actionData }: InviteeFormProps) {
	const [form, fields] = useForm({
		id: 'accept-signin',
		lastResult: actionData?.intent === 'signin' ? actionData.result : undefined,
		constraint: getZodConstraint(AcceptSignInSchema),
		defaultValue: { email },
		onValidate: ({ formData }) => parseWithZod(formData, { schema: AcceptSignInSchema }),
		shouldRevalidate: 'onInput',
	})
	return (
		<InvitationForm form={form} intent="signin" token={token} {...FORM_TEXT.signin}>
			<InvitedEmailField
				label="Email"
				hint="The address this invitation was sent to."
				field={fields.email}
			/>
			<Field
				label="Password"
				errors={fields.password.errors}
				inputProps={{
					...getInputProps(fields.password, { type: 'password' }),
					autoComplete: 'current-password',
				}}
			/>
		</InvitationForm>
	)
}

export function SignUpForm({ token, email, actionData }: InviteeFormProps) {
	const [form, fields] = useForm({
		id: 'accept-signup',
		lastResult: actionData?.intent === 'signup' ? actionData.result : undefined,
		constraint: getZodConstraint(AcceptSignUpSchema),
		defaultValue: { email },
		onValidate: ({ formData }) => parseWithZod(formData, { schema: AcceptSignUpSchema }),
		shouldRevalidate: 'onInput',
	})
	return (
		<InvitationForm form={form} intent="signup" token={token} {...FORM_TEXT.signup}>
			<Field
				label="Your name"
				errors={fields.fullName.errors}
				inputProps={{ ...getInputProps(fields.fullName, { type: 'text' }), autoComplete: 'name' }}
			/>
			<InvitedEmailField label="Work email" field={fields.email} />
			<Field
				label="Choose a password"
				hint="At least 8 characters, with letters and digits."
				errors={fields.password.errors}
				inputProps={{
					...getInputProps(fields.password, { type: 'password' }),
					autoComplete: 'new-password',
				}}
			/>
		</InvitationForm>
	)
}

export function AcceptForm({
	token,
	actionData,
}: {
	token: string
	actionData: InvitationActionData
}) {
	const [form] = useForm({
		id: 'accept',
		// also what went wrong joining right after signing in or up in this browser
		lastResult: actionData && actionData.intent !== 'signout' ? actionData.result : undefined,
	})
	return (
		<InvitationForm
			form={form}
			intent="accept"
			token={token}
			submit="Accept invitation"
			pendingText="Joining…"
		/>
	)
}

export function SignOutForm({ token, label }: { token: string; label: string }) {
	const pending = usePending('signout')
	return (
		<Form method="post">
			<input type="hidden" name="intent" value="signout" />
			<input type="hidden" name="token" value={token} />
			<SubmitButton variant="secondary" className="w-full" pending={pending}>
				{label}
			</SubmitButton>
		</Form>
	)
}
