import { getFormProps, getInputProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { ChangePasswordSchema, ProfileSchema } from '../../services/auth/schemas.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { useIsPending } from '../../utils/forms.ts'
import { SubmitButton } from '../ui/button.tsx'
import { Card } from '../ui/card.tsx'
import { Field, FormErrors } from '../ui/field.tsx'

type LastResult = SubmissionResult<string[]> | undefined

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
	const savingProfile = useIsPending('profile')
	const [profileForm, profileFields] = useForm({
		id: 'profile',
		lastResult,
		constraint: getZodConstraint(ProfileSchema),
		defaultValue: { fullName, company },
		onValidate: ({ formData }) => parseWithZod(formData, { schema: ProfileSchema }),
		shouldRevalidate: 'onInput',
	})
	return (
		<Card>
			<h2 className="text-lg font-semibold">Profile</h2>
			<Form method="post" className="mt-4 space-y-4" {...getFormProps(profileForm)}>
				<input type="hidden" name="intent" value="profile" />
				<FormErrors id={profileForm.errorId} errors={profileForm.errors} />
				<Field
					label="Your name"
					errors={profileFields.fullName.errors}
					inputProps={{
						...getInputProps(profileFields.fullName, { type: 'text' }),
						autoComplete: 'name',
					}}
				/>
				<Field
					label="Company"
					errors={profileFields.company.errors}
					inputProps={{
						...getInputProps(profileFields.company, { type: 'text' }),
						autoComplete: 'organization',
					}}
				/>
				<SubmitButton pending={savingProfile} pendingText="Saving…">
					Save profile
				</SubmitButton>
			</Form>
		</Card>
	)
}

/** A new password, typed twice. */
export function PasswordCard({ lastResult }: { lastResult: LastResult }) {
	const savingPassword = useIsPending('password')
	const [passwordForm, passwordFields] = useForm({
		id: 'password',
		lastResult,
		constraint: getZodConstraint(ChangePasswordSchema),
		onValidate: ({ formData }) => parseWithZod(formData, { schema: ChangePasswordSchema }),
		shouldRevalidate: 'onInput',
	})
	return (
		<Card>
			<h2 className="text-lg font-semibold">Password</h2>
			<Form method="post" className="mt-4 space-y-4" {...getFormProps(passwordForm)}>
				<input type="hidden" name="intent" value="password" />
				<FormErrors id={passwordForm.errorId} errors={passwordForm.errors} />
				<Field
					label="New password"
					hint="At least 8 characters, with letters and digits."
					errors={passwordFields.password.errors}
					inputProps={{
						...getInputProps(passwordFields.password, { type: 'password' }),
						autoComplete: 'new-password',
					}}
				/>
				<Field
					label="Repeat the new password"
					errors={passwordFields.confirmPassword.errors}
					inputProps={{
						...getInputProps(passwordFields.confirmPassword, { type: 'password' }),
						autoComplete: 'new-password',
					}}
				/>
				<SubmitButton pending={savingPassword} pendingText="Saving…">
					Change password
				</SubmitButton>
			</Form>
		</Card>
	)
}
