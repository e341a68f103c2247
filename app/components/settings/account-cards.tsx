import {
	getFormProps,
	getInputProps,
	useForm,
	type FormMetadata,
	type SubmissionResult,
} from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import type { ReactNode } from 'react'
import { Form } from 'react-router'
import { ChangePasswordSchema, ProfileSchema } from '../../services/auth/schemas.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { useIsPending } from '../../utils/forms.ts'
import { SubmitButton } from '../ui/button.tsx'
import { Card } from '../ui/card.tsx'
import { Field, FormErrors } from '../ui/field.tsx'

type LastResult = SubmissionResult<string[]> | undefined

/** A card of one form: its heading, its intent, its errors, its fields and its button. */
function SectionForm<Schema extends Record<string, unknown>>({
	title,
	form,
	intent,
	submit,
	children,
}: {
	title: string
	form: FormMetadata<Schema, string[]>
	intent: 'profile' | 'password'
	submit: string
	children: ReactNode
}) {
	const pending = useIsPending(intent)
	return (
		<Card>
			<h2 className="text-lg font-semibold">{title}</h2>
			<Form method="post" className="mt-4 space-y-4" {...getFormProps(form)}>
				<input type="hidden" name="intent" value={intent} />
				<FormErrors id={form.errorId} errors={form.errors} />
				{children}
				<SubmitButton pending={pending} pendingText="Saving…">
					{submit}
				</SubmitButton>
			</Form>
		</Card>
	)
}

/** The user's name and company. */
export function ProfileCard({
	fullName,
	company,
	lastResult,
}: {
	fullName: string
	company: string
	lastResult: LastResult
}) {
	const [form, fields] = useForm({
		id: 'profile',
		lastResult,
		constraint: getZodConstraint(ProfileSchema),
		defaultValue: { fullName, company },
		onValidate: ({ formData }) => parseWithZod(formData, { schema: ProfileSchema }),
		shouldRevalidate: 'onInput',
	})
	return (
		<SectionForm title="Profile" form={form} intent="profile" submit="Save profile">
			<Field
				label="Your name"
				errors={fields.fullName.errors}
				inputProps={{
					...getInputProps(fields.fullName, { type: 'text' }),
					autoComplete: 'name',
				}}
			/>
			<Field
				label="Company"
				errors={fields.company.errors}
				inputProps={{
					...getInputProps(fields.company, { type: 'text' }),
					autoComplete: 'organization',
				}}
			/>
		</SectionForm>
	)
}

/** A new password, typed twice. */
export function PasswordCard({ lastResult }: { lastResult: LastResult }) {
	const [form, fields] = useForm({
		id: 'password',
		lastResult,
		constraint: getZodConstraint(ChangePasswordSchema),
		onValidate: ({ formData }) => parseWithZod(formData, { schema: ChangePasswordSchema }),
		shouldRevalidate: 'onInput',
	})
	return (
		<SectionForm title="Password" form={form} intent="password" submit="Change password">
			<Field
				label="New password"
				hint="At least 8 characters, with letters and digits."
				errors={fields.password.errors}
				inputProps={{
					...getInputProps(fields.password, { type: 'password' }),
					autoComplete: 'new-password',
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
		</SectionForm>
	)
}
