import { getCollectionProps, type FieldMetadata } from '@conform-to/react'
import { Link } from 'react-router'
import {
	GRANTABLE_SCOPES,
	ROLE_LABELS,
	SCOPE_LABELS,
	TEAM_ROLES,
	type GrantableScope,
	type TeamRoleName,
} from '../../services/team/schemas.ts'
import { useHydrated } from '../../utils/use-hydrated.ts'
import { Choice, ChoiceGroup } from '../ui/choice.tsx'

export type Workspace = { id: string; name: string }

const ROLE_HINTS: Record<TeamRoleName, string> = {
	admin: 'Everything in the workspaces below, workspaces and settings; not billing or the team.',
	editor: 'Lists, enrichments and uploads in the workspaces below; domain tools as chosen.',
}

function withoutKey<T extends { key?: unknown }>(props: T) {
	const { key: _key, ...rest } = props
	return rest
}

export type AccessFieldSet = {
	role: FieldMetadata<TeamRoleName>
	access: FieldMetadata<'all' | 'selected'>
	workspaceIds: FieldMetadata<string[]>
	scopes: FieldMetadata<GrantableScope[]>
}

/** Role, workspace access and scopes: the same fields to invite and to edit a member. */
export function AccessFields({
	fields,
	workspaces,
}: {
	fields: AccessFieldSet
	workspaces: Workspace[]
}) {
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
