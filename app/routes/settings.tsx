import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { data, Form } from 'react-router'
import { z } from 'zod'
import type { Route } from './+types/settings'
import { SubmitButton } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { Field, FormErrors } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import { describeAuthError } from '../services/auth/errors.server.ts'
import { getProfile, updateProfile } from '../services/auth/profile.server.ts'
import { ChangePasswordSchema, ProfileSchema } from '../services/auth/schemas.ts'
import { useIsPending } from '../utils/forms.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'

export async function loader({ context }: Route.LoaderArgs) {
	const account = context.get(requestContext).account!
	const profile = await getProfile(account.user.id)
	return {
		email: account.user.email,
		fullName: profile?.full_name ?? '',
		company: profile?.company ?? '',
	}
}

const SettingsSchema = z.discriminatedUnion('intent', [ProfileSchema, ChangePasswordSchema])

export async function action({ request, context }: Route.ActionArgs) {
	const { account, supabase } = context.get(requestContext)
	const formData = await request.formData()
	const submission = parseWithZod(formData, { schema: SettingsSchema })
	const intent = formData.get('intent') === 'password' ? 'password' : 'profile'
	if (submission.status !== 'success') {
		return data(
			{ intent, result: submission.reply({ hideFields: ['password', 'confirmPassword'] }) },
			{ status: 400 },
		)
	}
	const value = submission.value
	if (value.intent === 'profile') {
		await updateProfile(account!.user.id, { fullName: value.fullName, company: value.company })
		return redirectWithSuccess('/settings', 'Profile saved')
	}
	const { error } = await supabase.auth.updateUser({ password: value.password })
	if (error) {
		const failure = describeAuthError(error)
		return data(
			{
				intent,
				result: submission.reply({
					hideFields: ['password', 'confirmPassword'],
					fieldErrors: { password: [failure.message] },
				}),
			},
			{ status: failure.status },
		)
	}
	return redirectWithSuccess('/settings', 'Password changed')
}

export default function Settings({ loaderData, actionData }: Route.ComponentProps) {
	const savingProfile = useIsPending('profile')
	const savingPassword = useIsPending('password')
	const [profileForm, profileFields] = useForm({
		id: 'profile',
		lastResult: actionData?.intent === 'profile' ? actionData.result : undefined,
		constraint: getZodConstraint(ProfileSchema),
		defaultValue: { fullName: loaderData.fullName, company: loaderData.company },
		onValidate: ({ formData }) => parseWithZod(formData, { schema: ProfileSchema }),
		shouldRevalidate: 'onBlur',
	})
	const [passwordForm, passwordFields] = useForm({
		id: 'password',
		lastResult: actionData?.intent === 'password' ? actionData.result : undefined,
		constraint: getZodConstraint(ChangePasswordSchema),
		onValidate: ({ formData }) => parseWithZod(formData, { schema: ChangePasswordSchema }),
		shouldRevalidate: 'onBlur',
	})
	return (
		<>
			<PageHeader title="Settings" description={`Signed in as ${loaderData.email}`} />
			<div className="grid max-w-2xl gap-6">
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
			</div>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Settings')
