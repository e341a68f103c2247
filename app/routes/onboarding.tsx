import { parseWithZod } from '../utils/form-bounds.ts'
import { data, redirect } from 'react-router'
import type { Route } from './+types/onboarding'
import { CompanyDetailsForm } from '../components/onboarding/company-details-form.tsx'
import { Card } from '../components/ui/card.tsx'
import { isOwner, requestContext } from '../context.server.ts'
import { getOnboarding, saveOnboarding } from '../services/onboarding/onboarding.server.ts'
import { OnboardingSchema } from '../services/onboarding/schema.ts'
import { useIsPending } from '../utils/forms.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Welcome')

/** Only the account owner answers; team members and finished owners go on to the app. */
function ownerAccount(context: Route.LoaderArgs['context']) {
	const account = context.get(requestContext).account!
	if (!isOwner(account) || account.onboardingCompleted) throw redirect('/')
	return account
}

export async function loader({ context }: Route.LoaderArgs) {
	const account = ownerAccount(context)
	const saved = await getOnboarding(account.user.id)
	return { defaults: saved ? { answers: saved.answers, phone: saved.phone } : null }
}

export async function action({ request, context }: Route.ActionArgs) {
	const account = ownerAccount(context)
	const submission = parseWithZod(await readFormData(request), { schema: OnboardingSchema })
	if (submission.status !== 'success') return data({ result: submission.reply() }, { status: 400 })
	await saveOnboarding(account.user.id, submission.value)
	return redirectWithSuccess('/', 'Welcome aboard! Your details are saved.')
}

export default function Onboarding({ loaderData, actionData }: Route.ComponentProps) {
	const pending = useIsPending()
	return (
		<>
			<h1 className="text-2xl font-bold text-slate-900">Tell us about your company</h1>
			<p className="mt-1 text-slate-600">
				A few questions so we can set things up for you. You can change the answers later in
				Settings.
			</p>
			<Card className="mt-6">
				<CompanyDetailsForm
					id="onboarding"
					lastResult={actionData?.result}
					defaults={loaderData.defaults}
					submitLabel="Finish and continue"
					pending={pending}
				/>
			</Card>
		</>
	)
}
