import { getFormProps, getInputProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import type { z } from 'zod'
import { WEBHOOK_EVENT_LABELS, WEBHOOK_EVENT_TYPES } from '../../services/webhooks/events.ts'
import { CreateEndpointSchema, ThresholdSchema } from '../../services/webhooks/schemas.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { useIsPending } from '../../utils/forms.ts'
import { SubmitButton } from '../ui/button.tsx'
import { Card } from '../ui/card.tsx'
import { Choice, ChoiceGroup } from '../ui/choice.tsx'
import { Field, FormErrors } from '../ui/field.tsx'

/** The form that adds an endpoint: its URL, the events it gets and, optionally, workspaces. */
export function AddEndpointCard({
	workspaces,
	accessAll,
	lastResult,
}: {
	workspaces: { id: string; name: string }[]
	accessAll: boolean
	lastResult: SubmissionResult<string[]> | undefined
}) {
	const pending = useIsPending('create')
	const [form, fields] = useForm<z.input<typeof CreateEndpointSchema>>({
		id: 'add-endpoint',
		lastResult,
		constraint: getZodConstraint(CreateEndpointSchema),
		onValidate: ({ formData }) => parseWithZod(formData, { schema: CreateEndpointSchema }),
		shouldValidate: 'onSubmit',
		shouldRevalidate: 'onInput',
	})
	return (
		<Card>
			<h2 id="add-endpoint-title" className="text-lg font-semibold">
				Add an endpoint
			</h2>
			<Form
				method="post"
				action="/developers/webhooks#add-endpoint-title"
				className="mt-4 space-y-5"
				{...getFormProps(form)}
			>
				<input type="hidden" name="intent" value="create" />
				<FormErrors id={form.errorId} errors={form.errors} />
				<Field
					label="Endpoint URL"
					hint="HTTPS, on a public address. Redirects are not followed."
					errors={fields.url.errors}
					inputProps={{ ...getInputProps(fields.url, { type: 'url' }), placeholder: 'https://' }}
				/>
				<Field
					label="Description (optional)"
					errors={fields.description.errors}
					inputProps={getInputProps(fields.description, { type: 'text' })}
				/>
				<ChoiceGroup
					legend="Events"
					errors={fields.events.errors}
					errorId={`${fields.events.id}-error`}
				>
					{WEBHOOK_EVENT_TYPES.map((type) => (
						<Choice
							key={type}
							label={WEBHOOK_EVENT_LABELS[type]}
							description={<code>{type}</code>}
							inputProps={{
								id: `event-${type}`,
								type: 'checkbox',
								name: fields.events.name,
								value: type,
								defaultChecked: (fields.events.initialValue as string[] | undefined)?.includes(
									type,
								),
							}}
						/>
					))}
				</ChoiceGroup>
				{workspaces.length > 0 ? (
					<ChoiceGroup
						legend={accessAll ? 'Workspaces (optional)' : 'Workspaces'}
						hint={
							accessAll
								? 'None chosen: every workspace, and the account’s own events (credits).'
								: 'The workspaces this endpoint reports on.'
						}
						errors={fields.workspaces.errors}
						errorId={`${fields.workspaces.id}-error`}
					>
						{workspaces.map((w) => (
							<Choice
								key={w.id}
								label={w.name}
								inputProps={{
									id: `workspace-${w.id}`,
									type: 'checkbox',
									name: fields.workspaces.name,
									value: w.id,
									defaultChecked: (
										fields.workspaces.initialValue as string[] | undefined
									)?.includes(w.id),
								}}
							/>
						))}
					</ChoiceGroup>
				) : null}
				<SubmitButton pending={pending} pendingText="Adding…">
					Add endpoint
				</SubmitButton>
			</Form>
		</Card>
	)
}

/** The account's threshold for credits.below_threshold. */
export function CreditsThresholdCard({
	threshold,
	lastResult,
}: {
	threshold: number | null
	lastResult: SubmissionResult<string[]> | undefined
}) {
	const pending = useIsPending('threshold')
	const [form, fields] = useForm<z.input<typeof ThresholdSchema>>({
		id: 'credits-threshold-form',
		lastResult,
		constraint: getZodConstraint(ThresholdSchema),
		defaultValue: { creditsBelow: threshold === null ? '' : String(threshold) },
		onValidate: ({ formData }) => parseWithZod(formData, { schema: ThresholdSchema }),
		shouldRevalidate: 'onInput',
	})
	return (
		<Card>
			<h2 id="credits-threshold" className="scroll-mt-4 text-lg font-semibold">
				Low credits
			</h2>
			<p className="mt-1 text-sm text-slate-600">
				<code>credits.below_threshold</code> is sent when the balance falls below this number (once,
				until it is back above). Empty: never.
			</p>
			<Form
				method="post"
				action="/developers/webhooks#credits-threshold"
				className="mt-4 flex flex-wrap items-end gap-3"
				{...getFormProps(form)}
			>
				<input type="hidden" name="intent" value="threshold" />
				<FormErrors id={form.errorId} errors={form.errors} />
				<Field
					label="Credits below"
					errors={fields.creditsBelow.errors}
					inputProps={{ ...getInputProps(fields.creditsBelow, { type: 'number' }), min: 1 }}
				/>
				<SubmitButton variant="secondary" pending={pending} pendingText="Saving…">
					Save threshold
				</SubmitButton>
			</Form>
		</Card>
	)
}
