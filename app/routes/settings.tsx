import { parseWithZod } from '../utils/form-bounds.ts'
import { data } from 'react-router'
import { z } from 'zod'
import type { Route } from './+types/settings'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { CompanyDetailsForm } from '../components/onboarding/company-details-form.tsx'
import { PasswordCard, ProfileCard } from '../components/settings/account-cards.tsx'
import { EmailBisonCard } from '../components/settings/emailbison-card.tsx'
import { EmailCard } from '../components/settings/email-card.tsx'
import { NotificationMailCard } from '../components/settings/notification-mail-card.tsx'
import { getNotificationMail } from '../services/notifications/notifications.server.ts'
import { notificationMailAction } from '../services/notifications/settings-action.server.ts'
import { TwoFactorCard, type TwoFactorActionData } from '../components/settings/two-factor-card.tsx'
import { isOwner, requestContext } from '../context.server.ts'
import { getOnboarding, saveOnboarding } from '../services/onboarding/onboarding.server.ts'
import { OnboardingSchema } from '../services/onboarding/schema.ts'
import { getProfile } from '../services/auth/profile.server.ts'
import { getEmailState } from '../services/auth/email-change.server.ts'
import {
	emailAction,
	emailCodeAction,
	profileOrPasswordAction,
	twoFactorAction,
} from '../services/auth/settings-actions.server.ts'
import { EmailBisonSettingsSchema, EmailBisonTestSchema } from '../services/emailbison/schemas.ts'
import {
	getEmailBisonSettings,
	saveEmailBisonSettings,
	testEmailBisonConnection,
} from '../services/emailbison/settings.server.ts'
import { formErrorReply } from '../utils/form-errors.server.ts'
import { useIsPending } from '../utils/forms.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'
import { getConfig } from '../config.server.ts'
import { TWO_FACTOR_REQUIRED } from '../middleware/route-guards.server.ts'
import { takeRecoveryCodes, unusedRecoveryCodes } from '../services/auth/recovery-codes.server.ts'

// One page of sections, each a form told apart by its `intent`, all posting to /settings (so
// each works without JavaScript and answers here): the sections' forms live in
// components/settings, the user's own sign-in sections answer in services/auth/settings-actions.

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
		// mails of job ends go to the account owner (decision 0082)
		notificationMail: isOwner(account) ? await getNotificationMail(account.user.id) : null,
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

const EmailBisonSchema = z.discriminatedUnion('intent', [
	EmailBisonSettingsSchema,
	EmailBisonTestSchema,
])

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
		return formErrorReply(error, submission, { intent }, ['apiKey'])
	}
}

export async function action({ request, context }: Route.ActionArgs) {
	const { account, supabase } = context.get(requestContext)
	const formData = await readFormData(request)
	if (String(formData.get('intent')).startsWith('emailbison'))
		return emailBisonAction(account, formData)
	if (formData.get('intent') === 'company-details') return companyDetailsAction(account!, formData)
	if (formData.get('intent') === 'notification-mail')
		return notificationMailAction(account!, formData)
	if (String(formData.get('intent')).startsWith('two-factor'))
		return twoFactorAction(supabase, account!, formData)
	if (formData.get('intent') === 'email')
		return emailAction(request, supabase, account!.user.id, formData)
	if (formData.get('intent') === 'email-code')
		return emailCodeAction(supabase, account!.user.id, formData)
	return profileOrPasswordAction(supabase, account!.user.id, formData)
}

export default function Settings({ loaderData, actionData }: Route.ComponentProps) {
	const savingCompany = useIsPending('company-details')
	const resultOf = (intent: string) =>
		actionData?.intent === intent ? actionData.result : undefined
	return (
		<>
			<PageHeader title="Settings" description={`Signed in as ${loaderData.email}`} />
			<div className="grid max-w-2xl grid-cols-1 gap-6">
				<ProfileCard
					fullName={loaderData.fullName}
					company={loaderData.company}
					lastResult={resultOf('profile')}
				/>
				<EmailCard
					email={loaderData.email}
					pending={loaderData.emailChange.pending}
					bothAddresses={loaderData.emailChange.bothAddresses}
					result={resultOf('email')}
					codeResult={resultOf('email-code')}
				/>
				{loaderData.companyDetails ? (
					<Card>
						<h2 className="text-lg font-semibold">Company details</h2>
						<div className="mt-4">
							<CompanyDetailsForm
								id="company-details"
								intent="company-details"
								lastResult={resultOf('company-details')}
								defaults={loaderData.companyDetails}
								submitLabel="Save company details"
								pending={savingCompany}
							/>
						</div>
					</Card>
				) : null}
				<PasswordCard lastResult={resultOf('password')} />
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
				<EmailBisonCard eb={loaderData.emailbison} lastResult={resultOf('emailbison')} />
				{loaderData.notificationMail ? (
					<NotificationMailCard
						mailed={loaderData.notificationMail}
						lastResult={resultOf('notification-mail')}
					/>
				) : null}
			</div>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Settings')
