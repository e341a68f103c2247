import { getFormProps, getInputProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { parseWithZod } from '../utils/form-bounds.ts'
import { data, Form } from 'react-router'
import { z } from 'zod'
import type { Route } from './+types/settings'
import { SubmitButton } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { Field, FormErrors } from '../components/ui/field.tsx'
import { CompanyDetailsForm } from '../components/onboarding/company-details-form.tsx'
import { isOwner, requestContext } from '../context.server.ts'
import { getOnboarding, saveOnboarding } from '../services/onboarding/onboarding.server.ts'
import { OnboardingSchema } from '../services/onboarding/schema.ts'
import { describeAuthError } from '../services/auth/errors.server.ts'
import { getProfile, updateProfile } from '../services/auth/profile.server.ts'
import {
	ChangeEmailSchema,
	ChangePasswordSchema,
	EmailChangeCodeSchema,
	ProfileSchema,
} from '../services/auth/schemas.ts'
import {
	confirmEmailChangeWithCode,
	FIRST_OF_TWO,
	getEmailState,
	requestEmailChange,
	type EmailChange,
} from '../services/auth/email-change.server.ts'
import { EmailBisonSettingsSchema, EmailBisonTestSchema } from '../services/emailbison/schemas.ts'
import {
	getEmailBisonSettings,
	saveEmailBisonSettings,
	testEmailBisonConnection,
} from '../services/emailbison/settings.server.ts'
import { FormError, replyWithFormError } from '../utils/http-errors.server.ts'
import { useIsPending } from '../utils/forms.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithInfo, redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'
import { getConfig } from '../config.server.ts'
import { TWO_FACTOR_REQUIRED } from '../middleware/route-guards.server.ts'
import type { Supabase } from '../services/auth/session.server.ts'
import {
	TwoFactorConfirmSchema,
	TwoFactorDisableSchema,
	TwoFactorEnrollSchema,
	TwoFactorRecoveryCodesSchema,
} from '../services/auth/two-factor.ts'
import {
	deleteRecoveryCodes,
	flashRecoveryCodes,
	issueRecoveryCodes,
	takeRecoveryCodes,
	unusedRecoveryCodes,
} from '../services/auth/recovery-codes.server.ts'
import {
	confirmEnrollment,
	disableTwoFactor,
	enrollmentView,
	startEnrollment,
	type Enrollment,
} from '../services/auth/two-factor.server.ts'

export async function loader({ request, context }: Route.LoaderArgs) {
	const account = context.get(requestContext).account!
	const config = getConfig()
	const [profile, emailState, flashed, recoveryCodesLeft] = await Promise.all([
		getProfile(account.user.id),
		getEmailState(account.user.id),
		takeRecoveryCodes(request, account.user.id),
		account.twoFactorEnabled ? unusedRecoveryCodes(account.user.id) : 0,
	])
	const headers = new Headers()
	if (flashed) {
		headers.append('Set-Cookie', flashed.clear)
		// codes shown once: no cache keeps this page
		headers.set('Cache-Control', 'no-store')
	}
	const page = {
		email: emailState.email || account.user.email,
		emailChange: {
			pending: emailState.pending,
			// a hosted Supabase confirms from both addresses unless its project turned it off
			bothAddresses: config.embeddedAuth ? config.AUTH_SECURE_EMAIL_CHANGE : true,
		},
		twoFactor: {
			enabled: account.twoFactorEnabled,
			recoveryCodesLeft,
			// just issued: shown this once
			recoveryCodes: account.twoFactorEnabled ? (flashed?.codes ?? null) : null,
			// sent here by the admin area (ADMIN_REQUIRE_MFA)
			requiredForAdmin:
				Boolean(account.platformRole) && new URL(request.url).search.includes(TWO_FACTOR_REQUIRED),
		},
		fullName: profile?.full_name ?? '',
		company: profile?.company ?? '',
		emailbison: await getEmailBisonSettings(account),
		// the owner's onboarding answers, editable here (docs/decisions/0009-client-rules-and-analytics.md)
		companyDetails: isOwner(account) ? await companyDetails(account.user.id) : null,
	}
	return data(page, { headers })
}

// this page's headers over what the layouts send
export function headers({ parentHeaders, loaderHeaders }: Route.HeadersArgs) {
	const merged = new Headers(parentHeaders)
	loaderHeaders.forEach((value, name) => {
		if (name === 'set-cookie') merged.append(name, value)
		else merged.set(name, value)
	})
	return merged
}

async function companyDetails(userId: string) {
	const saved = await getOnboarding(userId)
	return { answers: saved?.answers ?? {}, phone: saved?.phone ?? null }
}

async function companyDetailsAction(
	account: NonNullable<Parameters<typeof isOwner>[0]>,
	formData: FormData,
) {
	const intent = 'company-details' as const
	if (!isOwner(account))
		throw data('Only the account owner edits the company details.', { status: 403 })
	const submission = parseWithZod(formData, { schema: OnboardingSchema })
	if (submission.status !== 'success')
		return data({ intent, result: submission.reply() }, { status: 400 })
	await saveOnboarding(account.user.id, submission.value)
	return redirectWithSuccess('/settings', 'Company details saved')
}

const EmailBisonSchema = z.discriminatedUnion('intent', [
	EmailBisonSettingsSchema,
	EmailBisonTestSchema,
])

/** The EmailBison section's two forms: save the URL and key, and the connection test. */
async function emailBisonAction(
	account: Parameters<typeof saveEmailBisonSettings>[0],
	formData: FormData,
) {
	const submission = parseWithZod(formData, { schema: EmailBisonSchema })
	const intent = 'emailbison' as const
	if (submission.status !== 'success')
		return data({ intent, result: submission.reply({ hideFields: ['apiKey'] }) }, { status: 400 })
	try {
		if (submission.value.intent === 'emailbison-test') {
			const me = await testEmailBisonConnection(account)
			return redirectWithSuccess('/settings', `Connected to EmailBison as ${me.name}`)
		}
		await saveEmailBisonSettings(account, {
			url: submission.value.url,
			apiKey: submission.value.apiKey || undefined,
		})
		return redirectWithSuccess('/settings', 'EmailBison settings saved')
	} catch (error) {
		if (!(error instanceof FormError)) throw error
		return data(
			{ intent, result: replyWithFormError(submission, error, ['apiKey']) },
			{ status: 400 },
		)
	}
}

/**
 * The email section: the auth service mails a link to the new address and (secure email change)
 * to the current one; the address changes once the links are used (/auth/confirm).
 */
async function emailAction(
	request: Request,
	supabase: Supabase,
	userId: string,
	formData: FormData,
) {
	const intent = 'email' as const
	const submission = parseWithZod(formData, { schema: ChangeEmailSchema })
	if (submission.status !== 'success')
		return data({ intent, result: submission.reply() }, { status: 400 })
	const { email: current } = await getEmailState(userId)
	const fail = (message: string, status = 400) =>
		data({ intent, result: submission.reply({ fieldErrors: { email: [message] } }) }, { status })
	if (submission.value.email === current) return fail('This is already your email address.')
	const error = await requestEmailChange(request, supabase, submission.value.email)
	if (error) {
		if (error.code === 'email_exists') return fail('Another account uses this email address.')
		const failure = describeAuthError(error)
		return fail(failure.message, failure.status)
	}
	const { pending } = await getEmailState(userId)
	return redirectWithSuccess(
		'/settings',
		pending?.bothAddresses
			? `Check both inboxes: open the links we sent to ${current} and ${submission.value.email}.`
			: `Check your inbox: open the link we sent to ${submission.value.email}.`,
	)
}

/** A code from one of the email-change mails: the same effect as its link. */
async function emailCodeAction(supabase: Supabase, userId: string, formData: FormData) {
	const intent = 'email-code' as const
	const submission = parseWithZod(formData, { schema: EmailChangeCodeSchema })
	if (submission.status !== 'success')
		return data({ intent, result: submission.reply({ hideFields: ['code'] }) }, { status: 400 })
	const outcome = await confirmEmailChangeWithCode(supabase, userId, submission.value.code)
	if (outcome === 'changed') return redirectWithSuccess('/settings', 'Email address changed.')
	if (outcome === 'first-of-two') return redirectWithInfo('/settings', FIRST_OF_TWO)
	const message =
		outcome === 'limited'
			? 'Too many attempts. Wait a few minutes and try again.'
			: 'This code is not right or has expired. Use the latest email.'
	return data(
		{
			intent,
			result: submission.reply({ hideFields: ['code'], fieldErrors: { code: [message] } }),
		},
		{ status: outcome === 'limited' ? 429 : 400 },
	)
}

const SettingsSchema = z.discriminatedUnion('intent', [ProfileSchema, ChangePasswordSchema])

const TwoFactorSchema = z.discriminatedUnion('intent', [
	TwoFactorEnrollSchema,
	TwoFactorConfirmSchema,
	TwoFactorDisableSchema,
	TwoFactorRecoveryCodesSchema,
])

/** New recovery codes, to /settings, which shows them once. */
async function withNewRecoveryCodes(userId: string, message: string) {
	const codes = await issueRecoveryCodes(userId)
	return redirectWithSuccess('/settings#recovery-codes', message, {
		headers: { 'Set-Cookie': await flashRecoveryCodes(userId, codes) },
	})
}

/**
 * The two-factor section: start the set-up, confirm it with a first code (recovery codes come
 * with it), new recovery codes, turn it off.
 */
async function twoFactorAction(
	supabase: Supabase,
	account: { user: { id: string }; twoFactorEnabled: boolean },
	formData: FormData,
) {
	const intent = 'two-factor' as const
	const submission = parseWithZod(formData, { schema: TwoFactorSchema })
	if (submission.status !== 'success') {
		const factorId = formData.get('factorId')
		const uri = formData.get('uri')
		const enrollment =
			typeof factorId === 'string' && typeof uri === 'string' && uri.startsWith('otpauth://totp/')
				? enrollmentView(factorId, uri)
				: null
		return data(
			{ intent, result: submission.reply({ hideFields: ['code'] }), enrollment },
			{ status: 400 },
		)
	}
	const value = submission.value
	if (value.intent === 'two-factor-enroll') {
		const enrollment = await startEnrollment(supabase, getConfig().APP_NAME)
		return data({ intent, result: submission.reply({ resetForm: true }), enrollment })
	}
	if (value.intent === 'two-factor-confirm') {
		const failure = await confirmEnrollment(supabase, value.factorId, value.code)
		if (failure)
			return data(
				{
					intent,
					result: submission.reply({
						hideFields: ['code'],
						fieldErrors: { code: [failure.message] },
					}),
					enrollment: enrollmentView(value.factorId, value.uri),
				},
				{ status: failure.status },
			)
		return withNewRecoveryCodes(
			account.user.id,
			'Two-factor authentication is on. Save your recovery codes now: they are shown only once.',
		)
	}
	if (value.intent === 'two-factor-recovery-codes') {
		if (!account.twoFactorEnabled)
			return data(
				{
					intent,
					result: submission.reply({
						formErrors: ['Turn two-factor authentication on first: recovery codes come with it.'],
					}),
					enrollment: null,
				},
				{ status: 400 },
			)
		return withNewRecoveryCodes(
			account.user.id,
			'New recovery codes: the old ones no longer work. Save these now: they are shown only once.',
		)
	}
	const error = await disableTwoFactor(supabase)
	if (error)
		return data(
			{
				intent,
				result: submission.reply({
					formErrors: ['Sign in again with your code to turn two-factor authentication off.'],
				}),
				enrollment: null,
			},
			{ status: 400 },
		)
	await deleteRecoveryCodes(account.user.id)
	return redirectWithSuccess('/settings', 'Two-factor authentication is off')
}

export async function action({ request, context }: Route.ActionArgs) {
	const { account, supabase } = context.get(requestContext)
	const formData = await readFormData(request)
	if (String(formData.get('intent')).startsWith('emailbison'))
		return emailBisonAction(account, formData)
	if (formData.get('intent') === 'company-details') return companyDetailsAction(account!, formData)
	if (String(formData.get('intent')).startsWith('two-factor'))
		return twoFactorAction(supabase, account!, formData)
	if (formData.get('intent') === 'email')
		return emailAction(request, supabase, account!.user.id, formData)
	if (formData.get('intent') === 'email-code')
		return emailCodeAction(supabase, account!.user.id, formData)
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
	const savingEmailBison = useIsPending('emailbison')
	const savingCompany = useIsPending('company-details')
	const testingEmailBison = useIsPending('emailbison-test')
	const eb = loaderData.emailbison
	const [ebForm, ebFields] = useForm({
		id: 'emailbison',
		lastResult: actionData?.intent === 'emailbison' ? actionData.result : undefined,
		constraint: getZodConstraint(EmailBisonSettingsSchema),
		defaultValue: { url: eb.url },
		onValidate: ({ formData }) =>
			parseWithZod(formData, {
				schema:
					formData.get('intent') === 'emailbison-test'
						? EmailBisonTestSchema
						: EmailBisonSettingsSchema,
			}),
		shouldRevalidate: 'onInput',
	})
	const [profileForm, profileFields] = useForm({
		id: 'profile',
		lastResult: actionData?.intent === 'profile' ? actionData.result : undefined,
		constraint: getZodConstraint(ProfileSchema),
		defaultValue: { fullName: loaderData.fullName, company: loaderData.company },
		onValidate: ({ formData }) => parseWithZod(formData, { schema: ProfileSchema }),
		shouldRevalidate: 'onInput',
	})
	const [passwordForm, passwordFields] = useForm({
		id: 'password',
		lastResult: actionData?.intent === 'password' ? actionData.result : undefined,
		constraint: getZodConstraint(ChangePasswordSchema),
		onValidate: ({ formData }) => parseWithZod(formData, { schema: ChangePasswordSchema }),
		shouldRevalidate: 'onInput',
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
				<EmailCard
					email={loaderData.email}
					pending={loaderData.emailChange.pending}
					bothAddresses={loaderData.emailChange.bothAddresses}
					result={actionData?.intent === 'email' ? actionData.result : undefined}
					codeResult={actionData?.intent === 'email-code' ? actionData.result : undefined}
				/>
				{loaderData.companyDetails ? (
					<Card>
						<h2 className="text-lg font-semibold">Company details</h2>
						<div className="mt-4">
							<CompanyDetailsForm
								id="company-details"
								intent="company-details"
								lastResult={
									actionData?.intent === 'company-details' ? actionData.result : undefined
								}
								defaults={loaderData.companyDetails}
								submitLabel="Save company details"
								pending={savingCompany}
							/>
						</div>
					</Card>
				) : null}
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
				<TwoFactorCard
					enabled={loaderData.twoFactor.enabled}
					recoveryCodes={loaderData.twoFactor.recoveryCodes}
					recoveryCodesLeft={loaderData.twoFactor.recoveryCodesLeft}
					requiredForAdmin={loaderData.twoFactor.requiredForAdmin}
					actionData={
						actionData && 'enrollment' in actionData
							? (actionData as TwoFactorActionData)
							: undefined
					}
				/>
				<Card>
					<h2 className="text-lg font-semibold">EmailBison</h2>
					{eb.canManage ? (
						<Form
							method="post"
							className="mt-4 space-y-4"
							{...getFormProps(ebForm)}
							// a new form once saved: the key field empties
							key={`${eb.url}|${eb.keyLast4}`}
						>
							<FormErrors id={ebForm.errorId} errors={ebForm.errors} />
							<Field
								label="EmailBison URL"
								hint="Your instance's address, e.g. https://mail.example.com"
								errors={ebFields.url.errors}
								inputProps={{
									...getInputProps(ebFields.url, { type: 'url' }),
									placeholder: 'https://mail.example.com',
								}}
							/>
							<Field
								label="Super-admin API key"
								hint={
									eb.keyLast4
										? `Saved: ending in ${eb.keyLast4}. Leave empty to keep it.`
										: 'From EmailBison: Settings, API keys, a super-admin key.'
								}
								errors={ebFields.apiKey.errors}
								inputProps={{
									...getInputProps(ebFields.apiKey, { type: 'password' }),
									autoComplete: 'off',
								}}
							/>
							<div className="flex flex-wrap gap-3">
								<SubmitButton
									name="intent"
									value="emailbison"
									pending={savingEmailBison}
									pendingText="Saving…"
								>
									Save EmailBison settings
								</SubmitButton>
								{eb.configured ? (
									<SubmitButton
										name="intent"
										value="emailbison-test"
										variant="secondary"
										formNoValidate
										pending={testingEmailBison}
										pendingText="Testing…"
									>
										Test connection
									</SubmitButton>
								) : null}
							</div>
						</Form>
					) : (
						<p className="mt-2 text-slate-700">
							{eb.configured
								? 'EmailBison is connected. The account owner and team admins manage its settings.'
								: 'EmailBison is not connected yet. Ask the account owner or a team admin to connect it.'}
						</p>
					)}
				</Card>
			</div>
		</>
	)
}

/** The address, a pending change and how far its confirmation got, and the form to change it. */
function EmailCard({
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

type TwoFactorActionData = {
	result: SubmissionResult<string[]>
	enrollment: Enrollment | null
}

function TwoFactorCard({
	enabled,
	recoveryCodes,
	recoveryCodesLeft,
	requiredForAdmin,
	actionData,
}: {
	enabled: boolean
	recoveryCodes: string[] | null
	recoveryCodesLeft: number
	requiredForAdmin: boolean
	actionData: TwoFactorActionData | undefined
}) {
	const renewing = useIsPending('two-factor-recovery-codes')
	const starting = useIsPending('two-factor-enroll')
	const confirming = useIsPending('two-factor-confirm')
	const disabling = useIsPending('two-factor-disable')
	const enrollment = actionData?.enrollment ?? null
	const [form, fields] = useForm({
		id: 'two-factor',
		lastResult: actionData?.result,
		constraint: getZodConstraint(TwoFactorConfirmSchema),
		onValidate: ({ formData }) => parseWithZod(formData, { schema: TwoFactorSchema }),
		shouldRevalidate: 'onInput',
	})
	return (
		<Card>
			<h2 id="two-factor-authentication" className="text-lg font-semibold">
				Two-factor authentication
			</h2>
			{requiredForAdmin && !enabled ? (
				<p role="alert" className="mt-2 text-sm font-medium text-amber-800">
					The admin area needs two-factor authentication: turn it on to continue.
				</p>
			) : null}
			{enabled ? (
				<>
					<Form method="post" className="mt-4 space-y-4" {...getFormProps(form)}>
						<input type="hidden" name="intent" value="two-factor-disable" />
						<FormErrors id={form.errorId} errors={form.errors} />
						<p className="text-slate-700">
							On: signing in asks for a code from your authenticator app.
						</p>
						<SubmitButton variant="secondary" pending={disabling} pendingText="Turning off…">
							Turn off two-factor authentication
						</SubmitButton>
					</Form>
					<section aria-labelledby="recovery-codes" className="mt-6 border-t border-slate-200 pt-4">
						<h3 id="recovery-codes" className="font-semibold">
							Recovery codes
						</h3>
						{recoveryCodes ? (
							<div
								role="status"
								className="mt-2 rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200"
							>
								<p className="font-medium">
									Save these codes somewhere safe now: they are shown only once.
								</p>
								<p className="mt-1">
									If you lose your phone, sign in with your password and one of these codes. Each
									code works once.
								</p>
								<ul data-testid="recovery-codes" className="mt-2 grid grid-cols-2 gap-1 font-mono">
									{recoveryCodes.map((code) => (
										<li key={code}>{code}</li>
									))}
								</ul>
							</div>
						) : (
							<p className="mt-2 text-sm text-slate-700">
								{recoveryCodesLeft === 0
									? 'You have no unused recovery codes: without your phone you could not sign in. Get new ones.'
									: `${recoveryCodesLeft} unused ${recoveryCodesLeft === 1 ? 'code' : 'codes'} left. Each signs you in once if you lose your phone.`}
							</p>
						)}
						<Form method="post" className="mt-3">
							<input type="hidden" name="intent" value="two-factor-recovery-codes" />
							<SubmitButton variant="secondary" pending={renewing} pendingText="Making codes…">
								Get new recovery codes
							</SubmitButton>
						</Form>
					</section>
				</>
			) : enrollment ? (
				<Form method="post" className="mt-4 space-y-4" {...getFormProps(form)}>
					<input type="hidden" name="intent" value="two-factor-confirm" />
					<input type="hidden" name="factorId" value={enrollment.factorId} />
					<input type="hidden" name="uri" value={enrollment.uri} />
					<FormErrors id={form.errorId} errors={form.errors} />
					<p className="text-slate-700">
						Scan this QR code with your authenticator app, or type in the key below, then enter the
						code it shows.
					</p>
					<img
						src={enrollment.qrCode}
						alt="QR code for your authenticator app"
						width={192}
						height={192}
						className="rounded border border-slate-200"
					/>
					<p className="text-sm text-slate-700">
						Key:{' '}
						<code data-testid="two-factor-secret" className="font-mono break-all">
							{enrollment.secret}
						</code>
					</p>
					<Field
						label="Code from the app"
						errors={fields.code.errors}
						inputProps={{
							...getInputProps(fields.code, { type: 'text' }),
							inputMode: 'numeric',
							autoComplete: 'one-time-code',
						}}
					/>
					<SubmitButton pending={confirming} pendingText="Checking…">
						Turn on two-factor authentication
					</SubmitButton>
				</Form>
			) : (
				<Form method="post" className="mt-4 space-y-4" {...getFormProps(form)}>
					<input type="hidden" name="intent" value="two-factor-enroll" />
					<FormErrors id={form.errorId} errors={form.errors} />
					<p className="text-slate-700">
						Off. With it on, signing in also asks for a code from an authenticator app.
					</p>
					<SubmitButton pending={starting} pendingText="Preparing…">
						Set up two-factor authentication
					</SubmitButton>
				</Form>
			)}
		</Card>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Settings')
