import { getFormProps, getInputProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { InviteSchema } from '../../services/team/schemas.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { useIsPending } from '../../utils/forms.ts'
import { SubmitButton } from '../ui/button.tsx'
import { Card } from '../ui/card.tsx'
import { Field, FormErrors } from '../ui/field.tsx'
import { AccessFields, type AccessFieldSet, type Workspace } from './access-fields.tsx'

/** What the team page's action answered: the form it was for (`memberId` for a row's). */
export type TeamActionData =
	| {
			intent: 'invite' | 'update' | 'resend' | 'revoke' | 'remove' | 'bulk'
			memberId: string
			result: SubmissionResult<string[]>
	  }
	| undefined

/** Who to invite, with which role, workspaces and domain tools. */
export function InviteForm({
	workspaces,
	actionData,
}: {
	workspaces: Workspace[]
	actionData: TeamActionData
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
