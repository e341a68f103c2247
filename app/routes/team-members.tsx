import {
	getCollectionProps,
	getFormProps,
	getInputProps,
	useForm,
	type FieldMetadata,
} from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { parseWithZod } from '../utils/form-bounds.ts'
import { data, Form, Link, useNavigation } from 'react-router'
import type { Route } from './+types/team-members'
import { SubmitButton } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { Badge, Choice, ChoiceGroup } from '../components/ui/choice.tsx'
import { Field, FormErrors } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import { acceptedOrExpiryLabel } from '../services/team/describe-dates.ts'
import { inviteMember } from '../services/team/invite-member.server.ts'
import { listTeam } from '../services/team/list-team.server.ts'
import { removeMember } from '../services/team/remove-member.server.ts'
import { resendInvitation } from '../services/team/resend-invitation.server.ts'
import { revokeInvitation } from '../services/team/revoke-invitation.server.ts'
import {
	GRANTABLE_SCOPES,
	InviteSchema,
	ROLE_LABELS,
	SCOPE_LABELS,
	TEAM_ROLES,
	TeamActionSchema,
	toMemberAccess,
	UpdateMemberSchema,
	type GrantableScope,
	type TeamRoleName,
} from '../services/team/schemas.ts'
import { updateMember } from '../services/team/update-member.server.ts'
import { actingAccount } from '../services/workspaces/access.server.ts'
import { FormError, replyWithFormError } from '../utils/http-errors.server.ts'
import { useIsPending } from '../utils/forms.ts'
import { pageTitle } from '../utils/meta.ts'
import { useHydrated } from '../utils/use-hydrated.ts'
import { redirectWithError, redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

export async function loader({ context }: Route.LoaderArgs) {
	const account = actingAccount(context.get(requestContext).account)
	const team = await listTeam(account)
	const now = Date.now()
	const withLabel = <T extends { expiresAt: string | null; acceptedAt: string | null }>(e: T) => ({
		...e,
		dateLabel: acceptedOrExpiryLabel(e, now),
	})
	return {
		invitations: team.invitations.map(withLabel),
		members: team.members.map(withLabel),
		workspaces: account.workspaces,
	}
}

const INTENTS = ['invite', 'update', 'resend', 'revoke', 'remove'] as const

export async function action({ request, context }: Route.ActionArgs) {
	const account = actingAccount(context.get(requestContext).account)
	const formData = await readFormData(request)
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
		if (!(error instanceof FormError)) throw error
		return data(
			{ intent, memberId, result: replyWithFormError(submission, error) },
			{ status: error.status },
		)
	}
}

type LoaderData = Route.ComponentProps['loaderData']
type ActionData = Route.ComponentProps['actionData']
type Entry = LoaderData['members'][number]
type Workspace = LoaderData['workspaces'][number]

const ROLE_HINTS: Record<TeamRoleName, string> = {
	admin: 'Everything in the workspaces below, workspaces and settings; not billing or the team.',
	editor: 'Lists, enrichments and uploads in the workspaces below; domain tools as chosen.',
}

function withoutKey<T extends { key?: unknown }>(props: T) {
	const { key: _key, ...rest } = props
	return rest
}

type AccessFieldSet = {
	role: FieldMetadata<TeamRoleName>
	access: FieldMetadata<'all' | 'selected'>
	workspaceIds: FieldMetadata<string[]>
	scopes: FieldMetadata<GrantableScope[]>
}

/** Role, workspace access and scopes: the same fields to invite and to edit a member. */
function AccessFields({ fields, workspaces }: { fields: AccessFieldSet; workspaces: Workspace[] }) {
	const hydrated = useHydrated()
	// With JavaScript the choices that do not apply are hidden; without it they show, with hints.
	const showWorkspaces = !hydrated || fields.access.value !== 'all'
	const showScopes = !hydrated || fields.role.value !== 'admin'
	return (
		<>
			<ChoiceGroup legend="Role" errorId={fields.role.errorId} errors={fields.role.errors}>
				{getCollectionProps(fields.role, { type: 'radio', options: [...TEAM_ROLES] }).map(
					(props) => (
						<Choice
							key={props.value}
							label={ROLE_LABELS[props.value as TeamRoleName]}
							description={ROLE_HINTS[props.value as TeamRoleName]}
							inputProps={withoutKey(props)}
						/>
					),
				)}
			</ChoiceGroup>
			<ChoiceGroup
				legend="Workspaces"
				errorId={fields.access.errorId}
				errors={fields.access.errors}
			>
				{getCollectionProps(fields.access, { type: 'radio', options: ['all', 'selected'] }).map(
					(props) => (
						<Choice
							key={props.value}
							label={props.value === 'all' ? 'All workspaces' : 'Only the workspaces chosen below'}
							description={
								props.value === 'all' ? 'Including workspaces created later.' : undefined
							}
							inputProps={withoutKey(props)}
						/>
					),
				)}
			</ChoiceGroup>
			{showWorkspaces ? (
				<ChoiceGroup
					className="ml-7"
					legend="Chosen workspaces"
					hint={hydrated ? undefined : 'Used when “Only the workspaces chosen below” is selected.'}
					errorId={fields.workspaceIds.errorId}
					errors={fields.workspaceIds.errors}
				>
					{workspaces.length === 0 ? (
						<p className="text-sm text-slate-600">
							No workspaces yet.{' '}
							<Link to="/workspaces" className="font-semibold text-indigo-700 hover:underline">
								Create one
							</Link>
						</p>
					) : (
						getCollectionProps(fields.workspaceIds, {
							type: 'checkbox',
							options: workspaces.map((w) => w.id),
						}).map((props) => (
							<Choice
								key={props.value}
								label={workspaces.find((w) => w.id === props.value)?.name}
								inputProps={withoutKey(props)}
							/>
						))
					)}
				</ChoiceGroup>
			) : null}
			{showScopes ? (
				<ChoiceGroup
					legend="Domain tools"
					hint={
						hydrated
							? 'Domains, URL forwarding and inbox orders.'
							: 'For editors; admins have them through their role.'
					}
					errorId={fields.scopes.errorId}
					errors={fields.scopes.errors}
				>
					{getCollectionProps(fields.scopes, {
						type: 'checkbox',
						options: [...GRANTABLE_SCOPES],
					}).map((props) => (
						<Choice
							key={props.value}
							label={SCOPE_LABELS[props.value as GrantableScope]}
							description={props.value}
							inputProps={withoutKey(props)}
						/>
					))}
				</ChoiceGroup>
			) : null}
		</>
	)
}

function InviteForm({
	workspaces,
	actionData,
}: {
	workspaces: Workspace[]
	actionData: ActionData
}) {
	const inviting = useIsPending('invite')
	const [form, fields] = useForm({
		id: 'invite',
		lastResult: actionData?.intent === 'invite' ? actionData.result : undefined,
		constraint: getZodConstraint(InviteSchema),
		defaultValue: { role: 'editor', access: 'all', workspaceIds: [], scopes: [] },
		onValidate: ({ formData }) => parseWithZod(formData, { schema: InviteSchema }),
		shouldRevalidate: 'onInput',
	})
	return (
		<Card>
			<h2 className="text-lg font-semibold">Invite a team member</h2>
			<p className="mt-1 text-sm text-slate-600">
				They get an email with a link that works once and expires in 7 days.
			</p>
			<Form method="post" className="mt-4 space-y-5" {...getFormProps(form)}>
				<input type="hidden" name="intent" value="invite" />
				<FormErrors id={form.errorId} errors={form.errors} />
				<Field
					label="Invitee’s email"
					hint="The person you invite gets the invitation at this address."
					errors={fields.email.errors}
					inputProps={{ ...getInputProps(fields.email, { type: 'email' }), autoComplete: 'off' }}
				/>
				<AccessFields fields={fields as unknown as AccessFieldSet} workspaces={workspaces} />
				<SubmitButton pending={inviting} pendingText="Sending…">
					Send invitation
				</SubmitButton>
			</Form>
		</Card>
	)
}

function describeAccess(entry: Entry) {
	if (entry.accessAllWorkspaces) return 'All workspaces'
	if (entry.workspaces.length === 0) return 'No workspaces'
	return entry.workspaces.map((w) => w.name).join(', ')
}

function describeScopes(entry: Entry) {
	if (entry.role === 'admin') return 'Domain tools: all'
	if (entry.scopes.includes('domain-management:write')) return 'Domain tools: view and change'
	if (entry.scopes.includes('domain-management:read')) return 'Domain tools: view'
	return 'Domain tools: none'
}

function usePendingFor(intent: string, memberId: string) {
	const navigation = useNavigation()
	return (
		navigation.state !== 'idle' &&
		navigation.formData?.get('intent') === intent &&
		navigation.formData?.get('memberId') === memberId
	)
}

/** A one-button form (resend, revoke, remove). */
function RowAction({
	intent,
	entry,
	label,
	pendingText,
	variant = 'secondary',
}: {
	intent: 'resend' | 'revoke' | 'remove'
	entry: Entry
	label: string
	pendingText: string
	variant?: 'secondary' | 'danger'
}) {
	const pending = usePendingFor(intent, entry.id)
	return (
		<Form method="post">
			<input type="hidden" name="intent" value={intent} />
			<input type="hidden" name="memberId" value={entry.id} />
			<SubmitButton
				variant={variant}
				className="px-3 py-1.5"
				pending={pending}
				pendingText={pendingText}
				aria-label={`${label} ${entry.email}`}
			>
				{label}
			</SubmitButton>
		</Form>
	)
}

function EntrySummary({ entry, pending }: { entry: Entry; pending: boolean }) {
	return (
		<div className="min-w-0">
			<p className="flex flex-wrap items-center gap-2">
				<span className="font-semibold break-all text-slate-900">{entry.email}</span>
				<Badge tone={entry.role === 'admin' ? 'indigo' : 'slate'}>{ROLE_LABELS[entry.role]}</Badge>
				{pending ? <Badge tone={entry.expired ? 'amber' : 'slate'}>{entry.dateLabel}</Badge> : null}
			</p>
			<p className="mt-1 text-sm text-slate-600">
				{describeAccess(entry)} · {describeScopes(entry)}
			</p>
		</div>
	)
}

function InvitationRow({ entry, actionData }: { entry: Entry; actionData: ActionData }) {
	// a refused resend or revoke (e.g. the hourly invitation limit) is told at its row
	const mine =
		actionData?.memberId === entry.id &&
		(actionData.intent === 'resend' || actionData.intent === 'revoke')
	const errors = mine ? (actionData.result.error?.[''] ?? null) : null
	return (
		<li className="flex flex-wrap items-start justify-between gap-3 py-4" data-testid="invitation">
			<EntrySummary entry={entry} pending />
			<div className="flex gap-2">
				<RowAction intent="resend" entry={entry} label="Resend" pendingText="Sending…" />
				<RowAction intent="revoke" entry={entry} label="Revoke" pendingText="Revoking…" />
			</div>
			<div className="basis-full empty:hidden">
				<FormErrors errors={errors} />
			</div>
		</li>
	)
}

function MemberRow({
	entry,
	workspaces,
	actionData,
}: {
	entry: Entry
	workspaces: Workspace[]
	actionData: ActionData
}) {
	const saving = usePendingFor('update', entry.id)
	const mine = actionData?.memberId === entry.id && actionData.intent === 'update'
	const [form, fields] = useForm({
		id: `member-${entry.id}`,
		lastResult: mine ? actionData.result : undefined,
		constraint: getZodConstraint(UpdateMemberSchema),
		defaultValue: {
			role: entry.role,
			access: entry.accessAllWorkspaces ? 'all' : 'selected',
			workspaceIds: entry.workspaces.map((w) => w.id),
			scopes: entry.scopes,
		},
		onValidate: ({ formData }) => parseWithZod(formData, { schema: UpdateMemberSchema }),
		shouldRevalidate: 'onInput',
	})
	const failed = mine && Boolean(form.allErrors && Object.keys(form.allErrors).length)
	return (
		<li className="py-4" data-testid="member">
			<div className="flex flex-wrap items-start justify-between gap-3">
				<EntrySummary entry={entry} pending={false} />
				<p className="text-sm text-slate-600">{entry.dateLabel}</p>
			</div>
			<div className="mt-3 flex flex-wrap gap-x-6 gap-y-3">
				<details className="w-full sm:w-auto sm:min-w-80" open={failed || undefined}>
					<summary className="cursor-pointer text-sm font-semibold text-indigo-700 hover:underline">
						Edit access<span className="sr-only"> of {entry.email}</span>
					</summary>
					<Form method="post" className="mt-3 space-y-5" {...getFormProps(form)}>
						<input type="hidden" name="intent" value="update" />
						<input type="hidden" name="memberId" value={entry.id} />
						<FormErrors id={form.errorId} errors={form.errors} />
						<AccessFields fields={fields as unknown as AccessFieldSet} workspaces={workspaces} />
						<SubmitButton pending={saving} pendingText="Saving…">
							Save access
						</SubmitButton>
					</Form>
				</details>
				<details className="w-full sm:w-auto">
					<summary className="cursor-pointer text-sm font-semibold text-red-700 hover:underline">
						Remove<span className="sr-only"> {entry.email}</span>
					</summary>
					<div className="mt-3 space-y-3">
						<p className="max-w-sm text-sm text-slate-700">
							{entry.email} loses access to this account at once and goes back to their own.
						</p>
						<RowAction
							intent="remove"
							entry={entry}
							label="Remove from team"
							pendingText="Removing…"
							variant="danger"
						/>
					</div>
				</details>
			</div>
		</li>
	)
}

function EmptyState({ title, children }: { title: string; children: React.ReactNode }) {
	return (
		<div className="mt-4 rounded-md border border-dashed border-slate-300 p-6 text-center">
			<p className="font-medium text-slate-900">{title}</p>
			<p className="mt-1 text-sm text-slate-600">{children}</p>
		</div>
	)
}

export default function TeamMembers({ loaderData, actionData }: Route.ComponentProps) {
	const { invitations, members, workspaces } = loaderData
	return (
		<>
			<PageHeader
				title="Team members"
				description="People you invite work inside your account, in the workspaces you choose. Billing stays yours."
			/>
			<div className="grid max-w-3xl gap-6">
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
						<ul className="mt-2 divide-y divide-slate-200">
							{invitations.map((entry) => (
								<InvitationRow key={entry.id} entry={entry} actionData={actionData} />
							))}
						</ul>
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
