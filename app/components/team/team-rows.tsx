import { getFormProps, useForm } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { Form, useNavigation } from 'react-router'
import type { TeamEntry } from '../../services/team/list-team.server.ts'
import { ROLE_LABELS, UpdateMemberSchema } from '../../services/team/schemas.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { SubmitButton } from '../ui/button.tsx'
import { Badge } from '../ui/choice.tsx'
import { FormErrors } from '../ui/field.tsx'
import { AccessFields, type AccessFieldSet, type Workspace } from './access-fields.tsx'
import type { TeamActionData } from './invite-form.tsx'

/** An invitation or a member, with its date said in words by the loader. */
export type Entry = TeamEntry & { dateLabel: string }

export function describeAccess(entry: Entry) {
	if (entry.accessAllWorkspaces) return 'All workspaces'
	if (entry.workspaces.length === 0) return 'No workspaces'
	return entry.workspaces.map((w) => w.name).join(', ')
}

export function describeScopes(entry: Entry) {
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
export function RowAction({
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

export function MemberRow({
	entry,
	workspaces,
	actionData,
}: {
	entry: Entry
	workspaces: Workspace[]
	actionData: TeamActionData
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

export function EmptyState({ title, children }: { title: string; children: React.ReactNode }) {
	return (
		<div className="mt-4 rounded-md border border-dashed border-slate-300 p-6 text-center">
			<p className="font-medium text-slate-900">{title}</p>
			<p className="mt-1 text-sm text-slate-600">{children}</p>
		</div>
	)
}
