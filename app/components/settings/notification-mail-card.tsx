import { getFormProps, getInputProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import {
	NOTIFICATION_KIND_LABELS,
	NOTIFICATION_KINDS,
	type NotificationKind,
} from '../../services/notifications/kinds.ts'
import { NotificationMailSchema } from '../../services/notifications/schemas.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { useIsPending } from '../../utils/forms.ts'
import { SubmitButton } from '../ui/button.tsx'
import { Card } from '../ui/card.tsx'
import { Choice, ChoiceGroup } from '../ui/choice.tsx'
import { FormErrors } from '../ui/field.tsx'

/**
 * Which job ends the owner is mailed about; every one is listed under Notifications either way
 * (decision 0082).
 */
export function NotificationMailCard({
	mailed,
	lastResult,
}: {
	mailed: Record<NotificationKind, boolean>
	lastResult: SubmissionResult<string[]> | undefined
}) {
	const saving = useIsPending('notification-mail')
	const [form, fields] = useForm({
		id: 'notification-mail',
		lastResult,
		constraint: getZodConstraint(NotificationMailSchema),
		onValidate: ({ formData }) => parseWithZod(formData, { schema: NotificationMailSchema }),
	})
	return (
		<Card>
			<h2 id="notifications" className="text-lg font-semibold">
				Notification mails
			</h2>
			<Form
				method="post"
				className="mt-4 space-y-4"
				{...getFormProps(form)}
				// a fresh form once saved, showing what was saved
				key={NOTIFICATION_KINDS.map((k) => Number(mailed[k])).join('')}
			>
				<input type="hidden" name="intent" value="notification-mail" />
				<FormErrors id={form.errorId} errors={form.errors} />
				<ChoiceGroup
					legend="Mail me about"
					hint="Every finished or failed job is listed under Notifications, mailed or not."
					errorId="notification-mail-errors"
				>
					{NOTIFICATION_KINDS.map((kind) => (
						<Choice
							key={kind}
							label={NOTIFICATION_KIND_LABELS[kind]}
							inputProps={{
								...getInputProps(fields[kind], { type: 'checkbox' }),
								defaultChecked: mailed[kind],
							}}
						/>
					))}
				</ChoiceGroup>
				<SubmitButton pending={saving}>Save notification mails</SubmitButton>
			</Form>
		</Card>
	)
}
