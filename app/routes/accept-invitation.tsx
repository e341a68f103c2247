import { parseWithZod } from '../utils/form-bounds.ts'
import { data, Link, redirect, useRouteLoaderData } from 'react-router'
import type { Route } from './+types/accept-invitation'
import {
	AcceptForm,
	SignInForm,
	SignOutForm,
	SignUpForm,
	type InvitationIntent,
} from '../components/team/invitation-forms.tsx'
import { getConfig } from '../config.server.ts'
import { requestContext } from '../context.server.ts'
import type { loader as rootLoader } from '../root.tsx'
import { describeAuthError } from '../services/auth/errors.server.ts'
import { createProfile } from '../services/auth/profile.server.ts'
import {
	acceptInvitation,
	assertInvitedEmail,
	INVITATION_MESSAGES,
	usableInvitation,
} from '../services/team/accept-invitation.server.ts'
import { findInvitation, type Invitation } from '../services/team/find-invitation.server.ts'
import { AcceptInvitationSchema, ROLE_LABELS } from '../services/team/schemas.ts'
import { formErrorReply } from '../utils/form-errors.server.ts'
import { FormError } from '../utils/http-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithInfo, redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

// SPEC.md section 2: no middleware, no layout. Who invites whom into what; a signed-out
// visitor signs in or signs up right here (with the invited email), then joins.

const HEADINGS = {
	unknown: 'Invitation not found',
	expired: 'This invitation has expired',
	revoked: 'This invitation was revoked',
	used: 'This invitation was already accepted',
} as const

function ownerLabel(invitation: Invitation) {
	return invitation.ownerName
		? `${invitation.ownerName} (${invitation.ownerEmail})`
		: invitation.ownerEmail
}

function describeInvitation(invitation: Invitation) {
	const scopes =
		invitation.role === 'admin'
			? null
			: invitation.scopes.includes('domain-management:write')
				? 'They can view and change domains, URL forwarding and inbox orders.'
				: invitation.scopes.includes('domain-management:read')
					? 'They can view domains, URL forwarding and inbox orders.'
					: null
	return {
		owner: ownerLabel(invitation),
		ownerShort: invitation.ownerName ?? invitation.ownerEmail,
		email: invitation.email,
		role: ROLE_LABELS[invitation.role],
		access: invitation.accessAllWorkspaces
			? 'all workspaces'
			: invitation.workspaces.length === 1
				? `the workspace ${invitation.workspaces[0]}`
				: `the workspaces ${invitation.workspaces.join(', ')}`,
		scopes,
	}
}

export async function loader({ request, context }: Route.LoaderArgs) {
	const token = new URL(request.url).searchParams.get('token') ?? ''
	const invitation = await findInvitation(token)
	const { account } = context.get(requestContext)
	if (!invitation || invitation.state !== 'valid') {
		const state = (invitation?.state ?? 'unknown') as keyof typeof HEADINGS
		return data(
			{
				state,
				message: INVITATION_MESSAGES[state],
				token,
				invitation: null,
				signedInAs: account?.user.email ?? null,
			},
			{ status: state === 'unknown' ? 404 : 410 },
		)
	}
	return {
		state: 'valid' as const,
		message: null,
		token,
		invitation: describeInvitation(invitation),
		signedInAs: account?.user.email ?? null,
	}
}

const INTENTS: InvitationIntent[] = ['accept', 'signin', 'signup', 'signout']

/** The auth service's refusal of a sign-in or sign-up, as the form's error (with its status). */
function authFailure(error: Parameters<typeof describeAuthError>[0] | null, fallback: string) {
	const failure = error
		? describeAuthError(error)
		: { status: 400, message: fallback, field: undefined }
	return new FormError(failure.message, failure.field ?? null, failure.status)
}

export async function action({ request, context }: Route.ActionArgs) {
	const { supabase, account } = context.get(requestContext)
	const formData = await readFormData(request)
	const submission = parseWithZod(formData, { schema: AcceptInvitationSchema })
	const intent = INTENTS.find((i) => i === formData.get('intent')) ?? 'accept'
	const hideFields = ['password']
	if (submission.status !== 'success') {
		return data({ intent, result: submission.reply({ hideFields }) }, { status: 400 })
	}
	const value = submission.value
	const self = `/accept-invitation?token=${encodeURIComponent(value.token)}`
	try {
		if (value.intent === 'signout') {
			if (account) await supabase.auth.signOut({ scope: 'local' })
			return redirect(self)
		}
		if (value.intent === 'accept') {
			if (!account) throw new FormError('Sign in or create your account first.')
			const invitation = await acceptInvitation(value.token, account.user)
			return redirectWithSuccess('/', `You joined ${ownerLabel(invitation)}’s team`)
		}
		const invitation = await usableInvitation(value.token)
		assertInvitedEmail(invitation, value.email)
		if (value.intent === 'signin') {
			const { data: signedIn, error } = await supabase.auth.signInWithPassword({
				email: value.email,
				password: value.password,
			})
			if (error || !signedIn.user) throw authFailure(error, 'Could not sign in.')
			await acceptInvitation(value.token, {
				id: signedIn.user.id,
				email: signedIn.user.email ?? value.email,
			})
			return redirectWithSuccess('/', `You joined ${ownerLabel(invitation)}’s team`)
		}
		const { data: signUp, error } = await supabase.auth.signUp({
			email: value.email,
			password: value.password,
			options: {
				data: { full_name: value.fullName },
				emailRedirectTo: `${getConfig().APP_URL}/auth/confirm?next=${encodeURIComponent(self)}`,
			},
		})
		if (error || !signUp.user) throw authFailure(error, 'Could not create the account.')
		await createProfile(signUp.user.id, value.fullName, { signedIn: Boolean(signUp.session) })
		if (!signUp.session) {
			return redirectWithInfo(
				self,
				'Check your inbox: confirm your email with the link we sent, then accept here.',
			)
		}
		await acceptInvitation(value.token, { id: signUp.user.id, email: value.email })
		return redirectWithSuccess('/', `You joined ${ownerLabel(invitation)}’s team`)
	} catch (error) {
		return formErrorReply(error, submission, { intent }, hideFields)
	}
}

export default function AcceptInvitation({ loaderData, actionData }: Route.ComponentProps) {
	const root = useRouteLoaderData<typeof rootLoader>('root')
	const appName = root?.appName ?? 'Leadsmith'
	const { state, token, invitation, signedInAs } = loaderData
	const signedInAsInvitee =
		invitation && signedInAs?.toLowerCase() === invitation.email.toLowerCase()
	return (
		<div className="flex min-h-full flex-col items-center justify-center px-4 py-12">
			<Link to="/" className="mb-8 flex items-center gap-2 text-xl font-bold text-slate-900">
				<span
					aria-hidden
					className="grid size-8 place-items-center rounded-md bg-indigo-700 text-white"
				>
					L
				</span>
				{appName}
			</Link>
			<main className="w-full max-w-md rounded-lg bg-white p-6 shadow-sm ring-1 ring-slate-200 sm:p-8">
				{state !== 'valid' || !invitation ? (
					<div data-testid="invitation-state" data-state={state}>
						<h1 className="text-2xl font-bold text-slate-900">{HEADINGS[state]}</h1>
						<p className="mt-3 text-slate-700">{loaderData.message}</p>
						<div className="mt-6 flex flex-wrap gap-3">
							{signedInAs ? (
								<Link
									to="/"
									className="rounded-md bg-indigo-700 px-4 py-2 text-sm font-semibold text-white hover:bg-indigo-800"
								>
									Go to your dashboard
								</Link>
							) : (
								<Link
									to="/signin"
									className="rounded-md bg-indigo-700 px-4 py-2 text-sm font-semibold text-white hover:bg-indigo-800"
								>
									Sign in
								</Link>
							)}
						</div>
					</div>
				) : (
					<>
						<p className="text-sm font-semibold tracking-wide text-indigo-700 uppercase">
							Invitation
						</p>
						<h1 className="mt-1 text-2xl font-bold text-slate-900">
							Join {invitation.ownerShort}’s team
						</h1>
						<p className="mt-3 text-slate-700" data-testid="invitation-summary">
							<span className="font-medium text-slate-900">{invitation.owner}</span> invites{' '}
							<span className="font-medium text-slate-900">{invitation.email}</span> to work in
							their {appName} account as an{' '}
							<span className="font-medium text-slate-900">{invitation.role.toLowerCase()}</span>,
							with access to {invitation.access}.
						</p>
						{invitation.scopes ? (
							<p className="mt-2 text-sm text-slate-600">{invitation.scopes}</p>
						) : null}
						<div className="mt-6 space-y-6">
							{signedInAsInvitee ? (
								<>
									<p className="text-sm text-slate-600">You are signed in as {signedInAs}.</p>
									<AcceptForm token={token} actionData={actionData} />
								</>
							) : signedInAs ? (
								<>
									<p className="rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200">
										You are signed in as {signedInAs}, but this invitation is for {invitation.email}
										. Sign out, then sign in or sign up with that address.
									</p>
									<SignOutForm token={token} label={`Sign out ${signedInAs}`} />
								</>
							) : (
								<>
									<SignInForm token={token} email={invitation.email} actionData={actionData} />
									<div className="flex items-center gap-3 text-sm text-slate-500" aria-hidden>
										<span className="h-px flex-1 bg-slate-200" />
										or
										<span className="h-px flex-1 bg-slate-200" />
									</div>
									<SignUpForm token={token} email={invitation.email} actionData={actionData} />
								</>
							)}
						</div>
					</>
				)}
			</main>
		</div>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Accept invitation')
