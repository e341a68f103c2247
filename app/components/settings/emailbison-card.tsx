import { getFormProps, getInputProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import {
	EmailBisonSettingsSchema,
	EmailBisonTestSchema,
} from '../../services/emailbison/schemas.ts'
import type { EmailBisonSettingsView } from '../../services/emailbison/settings.server.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { useIsPending } from '../../utils/forms.ts'
import { SubmitButton } from '../ui/button.tsx'
import { Card } from '../ui/card.tsx'
import { Field, FormErrors } from '../ui/field.tsx'

/** The account's EmailBison URL and key, and the connection test; who may not manage them reads why. */
export function EmailBisonCard({
	eb,
	lastResult,
}: {
	eb: EmailBisonSettingsView
	lastResult: SubmissionResult<string[]> | undefined
}) {
	const savingEmailBison = useIsPending('emailbison')
	const testingEmailBison = useIsPending('emailbison-test')
	const [ebForm, ebFields] = useForm({
		id: 'emailbison',
		lastResult,
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
	return (
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
	)
}
