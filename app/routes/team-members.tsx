import { parseWithZod } from '../utils/form-bounds.ts'
import { data } from 'react-router'
import type { Route } from './+types/team-members'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { InviteForm } from '../components/team/invite-form.tsx'
import { InvitationsTable } from '../components/team/invitations-table.tsx'
import { EmptyState, MemberRow } from '../components/team/team-rows.tsx'
import { BulkProgress } from '../components/ui/bulk-progress.tsx'
import { requestContext } from '../context.server.ts'
import { findBulkAction, startBulkAction } from '../services/bulk/bulk-actions.server.ts'
import { bulkSelection } from '../services/bulk/schemas.ts'
import { newFormKey, oncePerSubmission } from '../services/idempotency/form-submissions.server.ts'
import { tablePreferences } from '../services/tables/preferences.server.ts'
import { invitationBulk } from '../services/team/bulk.server.ts'
import { acceptedOrExpiryLabel } from '../services/team/describe-dates.ts'
import { inviteMember } from '../services/team/invite-member.server.ts'
import { listTeam } from '../services/team/list-team.server.ts'
import { removeMember } from '../services/team/remove-member.server.ts'
import { resendInvitation } from '../services/team/resend-invitation.server.ts'
import { revokeInvitation } from '../services/team/revoke-invitation.server.ts'
import { InvitationBulkSchema, TeamActionSchema, toMemberAccess } from '../services/team/schemas.ts'
import { updateMember } from '../services/team/update-member.server.ts'
import { actingAccount, type ActingAccount } from '../services/workspaces/access.server.ts'
import { formErrorReply } from '../utils/form-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithError, redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

export async function loader({ request, context }: Route.LoaderArgs) {
	const account = actingAccount(context.get(requestContext).account)
	const bulkId = new URL(request.url).searchParams.get('bulk')
	const [team, preferences, bulk] = await Promise.all([
		listTeam(account),
		tablePreferences(account.user.id, 'invitations'),
		bulkId ? findBulkAction(account, bulkId) : Promise.resolve(null),
	])
	const now = Date.now()
	const withLabel = <T extends { expiresAt: string | null; acceptedAt: string | null }>(e: T) => ({
		...e,
		dateLabel: acceptedOrExpiryLabel(e, now),
	})
	return {
		invitations: team.invitations.map(withLabel),
		members: team.members.map(withLabel),
		workspaces: account.workspaces,
		preferences: { table: 'invitations', ...preferences },
		formKey: newFormKey(),
		bulk: bulk
			? { ...bulk, label: invitationBulk.actions[bulk.action]?.label ?? bulk.action }
			: null,
	}
}

const INTENTS = ['invite', 'update', 'resend', 'revoke', 'remove'] as const

export async function action({ request, context }: Route.ActionArgs) {
	const account = actingAccount(context.get(requestContext).account)
	const formData = await readFormData(request)
	if (formData.get('intent') === 'bulk') return bulkAction(account, formData)
	const submission = parseWithZod(formData, { schema: TeamActionSchema })
	const intent = INTENTS.find((i) => i === formData.get('intent')) ?? 'invite'
	const memberId = String(formData.get('memberId') ?? '')
	if (submission.status !== 'success') {
		return data({ intent, memberId, result: submission.reply() }, { status: 400 })
	}
	const value = submission.value
	try {
		switch (value.intent) {
			case 'invite': {
				const invited = await inviteMember(account, {
					email: value.email,
					...toMemberAccess(value),
				})
				return invited.mailSent
					? redirectWithSuccess('/team-members', `Invitation sent to ${invited.email}`)
					: redirectWithError(
							'/team-members',
							`The invitation to ${invited.email} is saved, but the email could not be sent. Use Resend.`,
						)
			}
			case 'update': {
				const { email } = await updateMember(account, value.memberId, toMemberAccess(value))
				return redirectWithSuccess('/team-members', `Access of ${email} updated`)
			}
			case 'resend': {
				const sent = await resendInvitation(account, value.memberId)
				return sent.mailSent
					? redirectWithSuccess('/team-members', `Invitation sent again to ${sent.email}`)
					: redirectWithError('/team-members', `The email to ${sent.email} could not be sent.`)
			}
			case 'revoke': {
				const { email } = await revokeInvitation(account, value.memberId)
				return redirectWithSuccess('/team-members', `Invitation to ${email} revoked`)
			}
			case 'remove': {
				const { email } = await removeMember(account, value.memberId)
				return redirectWithSuccess('/team-members', `${email} removed from the team`)
			}
		}
	} catch (error) {
		return formErrorReply(error, submission, { intent, memberId })
	}
}

/** Resend or revoke ticked (or all) invitations: one job per submission, its progress here. */
async function bulkAction(account: ActingAccount, formData: FormData) {
	const submission = parseWithZod(formData, { schema: InvitationBulkSchema })
	const reply = { intent: 'bulk' as const, memberId: '' }
	if (submission.status !== 'success') {
		return data({ ...reply, result: submission.reply() }, { status: 400 })
	}
	try {
		const started = await oncePerSubmission(
			{ accountId: account.accountId, form: 'invitations-bulk', formData },
			(trx) =>
				startBulkAction(
					account,
					invitationBulk,
					{ action: submission.value.action, selection: bulkSelection(submission.value) },
					trx,
				),
		)
		return redirectWithSuccess(
			`/team-members?bulk=${started.id}`,
			`${started.label}: ${started.total} invitation${started.total === 1 ? '' : 's'} queued`,
		)
	} catch (error) {
		return formErrorReply(error, submission, reply)
	}
}

export default function TeamMembers({ loaderData, actionData }: Route.ComponentProps) {
	const { invitations, members, workspaces } = loaderData
	return (
		<>
			<PageHeader
				title="Team members"
				description="People you invite work inside your account, in the workspaces you choose. Billing stays yours."
			/>
			{loaderData.bulk ? <BulkProgress bulk={loaderData.bulk} closeTo="/team-members" /> : null}
			<div className="grid max-w-3xl grid-cols-1 gap-6">
				<InviteForm
					// an invitation sent: a new, empty form (a second click must not invite again)
					key={invitations.map((i) => i.id).join()}
					workspaces={workspaces}
					actionData={actionData}
				/>
				<Card>
					<h2 className="text-lg font-semibold">Pending invitations</h2>
					{invitations.length === 0 ? (
						<EmptyState title="No pending invitations">
							Invitations you send wait here until they are accepted.
						</EmptyState>
					) : (
						<div className="mt-3">
							<InvitationsTable
								rows={invitations}
								preferences={loaderData.preferences}
								formKey={loaderData.formKey}
								actionData={actionData}
							/>
						</div>
					)}
				</Card>
				<Card>
					<h2 className="text-lg font-semibold">Members</h2>
					{members.length === 0 ? (
						<EmptyState title="No team members yet">
							Invite someone above; they appear here once they accept.
						</EmptyState>
					) : (
						<ul className="mt-2 divide-y divide-slate-200">
							{members.map((entry) => (
								<MemberRow
									key={entry.id}
									entry={entry}
									workspaces={workspaces}
									actionData={actionData}
								/>
							))}
						</ul>
					)}
				</Card>
			</div>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Team members')
