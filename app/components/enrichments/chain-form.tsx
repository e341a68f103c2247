import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { Form, Link, useLocation } from 'react-router'
import type { z } from 'zod'
import type { Chain } from '../../services/enrichments/enrichments.server.ts'
import {
	CATCH_ALL_LABELS,
	CATCH_ALL_POLICIES,
	CHAIN_STEP_SLOTS,
	ChainFormSchema,
	STEP_KINDS,
	STEP_LABELS,
} from '../../services/enrichments/schemas.ts'
import { CONDITION_LABELS } from '../../services/enrichments/template.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { useIsPending } from '../../utils/forms.ts'
import { Button, SubmitButton } from '../ui/button.tsx'
import { Card } from '../ui/card.tsx'
import { Choice, ChoiceGroup } from '../ui/choice.tsx'
import { ErrorList, Field, FormErrors, inputClasses } from '../ui/field.tsx'
import type { EnrichmentsActionResult, EnrichmentsPageData } from './enrichments-page.ts'

// /enrichments' form for a new chain or the one being edited. Moving, adding and removing a
// step are conform intents: without JavaScript the action sends the form back rearranged.

/** A saved chain's steps as the form's steps; a new chain starts with one empty step. */
function chainSlots(chain: Chain | null) {
	const steps = (chain?.steps ?? []).map((step) => ({
		kind: step.kind,
		enrichmentId: step.kind === 'ai' ? step.enrichmentId : '',
		outputColumn: step.kind === 'ai' ? '' : step.outputColumn,
		conditionColumn: step.condition?.column ?? '',
		conditionOp: step.condition?.op ?? '',
		conditionValue: step.condition?.value ?? '',
	}))
	return steps.length ? steps : [{ kind: '' }]
}

export function ChainForm({
	loaderData,
	actionData,
	editing,
}: {
	loaderData: EnrichmentsPageData
	actionData: EnrichmentsActionResult | undefined
	editing: Chain | null
}) {
	const location = useLocation()
	const intent = editing ? 'update-chain' : 'create-chain'
	const saving = useIsPending(intent)
	const [form, fields] = useForm<z.input<typeof ChainFormSchema>>({
		id: editing ? 'chain-edit' : 'chain',
		lastResult: actionData?.intent === intent ? actionData.result : undefined,
		constraint: getZodConstraint(ChainFormSchema),
		defaultValue: {
			name: editing?.name ?? '',
			catchAll: editing?.catchAll ?? 'safe',
			steps: chainSlots(editing),
		},
		onValidate: ({ formData }) => parseWithZod(formData, { schema: ChainFormSchema }),
		shouldRevalidate: 'onInput',
	})
	const steps = fields.steps.getFieldList()
	return (
		<Card>
			<div className="flex items-baseline justify-between gap-4">
				<h2 id="chain-form" className="scroll-mt-4 text-lg font-semibold">
					{editing ? `Edit chain “${editing.name}”` : 'New enrichment chain'}
				</h2>
				{editing ? (
					<Link to="/enrichments" className="text-sm text-slate-600 underline">
						Cancel editing
					</Link>
				) : null}
			</div>
			<p className="mt-1 text-sm text-slate-600">
				Steps run in order for each lead. A step is skipped when its “run only if” condition does
				not hold, or when an earlier step already filled its output column (a waterfall).
				{editing ? ' Runs already started keep the steps they started with.' : ''}
			</p>
			<Form
				method="post"
				action={`${location.pathname}${location.search}#chain-form`}
				className="mt-4 space-y-4"
				{...getFormProps(form)}
			>
				<input type="hidden" name="intent" value={intent} />
				{editing ? <input type="hidden" name="id" value={editing.id} /> : null}
				<FormErrors id={form.errorId} errors={form.errors} />
				<Field
					label="Name"
					errors={fields.name.errors}
					inputProps={getInputProps(fields.name, { type: 'text' })}
				/>
				<ErrorList id={fields.steps.errorId} errors={fields.steps.errors} />
				{steps.map((step, index) => {
					const s = step.getFieldset()
					return (
						<fieldset key={step.key ?? index} className="rounded-md p-3 ring-1 ring-slate-200">
							<legend className="px-1 text-sm font-medium">Step {index + 1}</legend>
							<div className="mb-2 flex flex-wrap gap-2">
								{index > 0 ? (
									<Button
										variant="ghost"
										className="px-2 py-1"
										{...form.reorder.getButtonProps({
											name: fields.steps.name,
											from: index,
											to: index - 1,
										})}
									>
										<span>
											Move<span className="sr-only"> step {index + 1}</span> up
										</span>
									</Button>
								) : null}
								{index < steps.length - 1 ? (
									<Button
										variant="ghost"
										className="px-2 py-1"
										{...form.reorder.getButtonProps({
											name: fields.steps.name,
											from: index,
											to: index + 1,
										})}
									>
										<span>
											Move<span className="sr-only"> step {index + 1}</span> down
										</span>
									</Button>
								) : null}
								{steps.length > 1 ? (
									<Button
										variant="ghost"
										className="px-2 py-1"
										{...form.remove.getButtonProps({ name: fields.steps.name, index })}
									>
										Remove<span className="sr-only"> step {index + 1}</span>
									</Button>
								) : null}
							</div>
							<div className="grid gap-3 sm:grid-cols-3">
								<label className="text-sm">
									Kind
									<select
										name={s.kind.name}
										defaultValue={s.kind.initialValue ?? ''}
										className={`mt-1 ${inputClasses}`}
									>
										<option value="">(no step)</option>
										{STEP_KINDS.map((k) => (
											<option key={k} value={k}>
												{STEP_LABELS[k]}
											</option>
										))}
									</select>
								</label>
								<label className="text-sm">
									AI enrichment
									<select
										name={s.enrichmentId.name}
										defaultValue={s.enrichmentId.initialValue ?? ''}
										aria-invalid={s.enrichmentId.errors ? true : undefined}
										className={`mt-1 ${inputClasses}`}
									>
										<option value="">(for AI steps)</option>
										{loaderData.enrichments.map((e) => (
											<option key={e.id} value={e.id}>
												{e.name} → {e.outputColumn}
											</option>
										))}
									</select>
									<ErrorList errors={s.enrichmentId.errors} />
								</label>
								<label className="text-sm">
									Output column (built-in steps) — for Verify email, the email column it checks
									<input
										name={s.outputColumn.name}
										defaultValue={s.outputColumn.initialValue ?? ''}
										aria-invalid={s.outputColumn.errors ? true : undefined}
										placeholder="email_guess"
										className={`mt-1 ${inputClasses}`}
									/>
									<ErrorList errors={s.outputColumn.errors} />
								</label>
								<label className="text-sm">
									Run only if column
									<input
										name={s.conditionColumn.name}
										defaultValue={s.conditionColumn.initialValue ?? ''}
										aria-invalid={s.conditionColumn.errors ? true : undefined}
										list="columns"
										placeholder="(always)"
										className={`mt-1 ${inputClasses}`}
									/>
									<ErrorList errors={s.conditionColumn.errors} />
								</label>
								<label className="text-sm">
									Comparison
									<select
										name={s.conditionOp.name}
										defaultValue={s.conditionOp.initialValue ?? ''}
										aria-invalid={s.conditionOp.errors ? true : undefined}
										className={`mt-1 ${inputClasses}`}
									>
										<option value="">(choose)</option>
										{Object.entries(CONDITION_LABELS).map(([op, label]) => (
											<option key={op} value={op}>
												{label}
											</option>
										))}
									</select>
									<ErrorList errors={s.conditionOp.errors} />
								</label>
								<label className="text-sm">
									Value
									<input
										name={s.conditionValue.name}
										defaultValue={s.conditionValue.initialValue ?? ''}
										className={`mt-1 ${inputClasses}`}
									/>
								</label>
							</div>
						</fieldset>
					)
				})}
				{steps.length < CHAIN_STEP_SLOTS ? (
					// conform's insert intent: without JavaScript the action sends the form back
					// with one more step, what was typed kept
					<Button
						variant="secondary"
						{...form.insert.getButtonProps({ name: fields.steps.name, defaultValue: { kind: '' } })}
					>
						Add a step
					</Button>
				) : (
					<p className="text-sm text-slate-600">A chain has at most {CHAIN_STEP_SLOTS} steps.</p>
				)}
				<ChoiceGroup
					legend="Catch-all emails (for Verify email steps)"
					hint="A catch-all domain accepts every address, so such an email cannot be confirmed. Unknown answers never count as verified."
					errors={fields.catchAll.errors}
					errorId={fields.catchAll.errorId}
				>
					{CATCH_ALL_POLICIES.map((policy) => (
						<Choice
							key={policy}
							label={CATCH_ALL_LABELS[policy]}
							inputProps={{
								...getInputProps(fields.catchAll, { type: 'radio', value: policy }),
								id: `${fields.catchAll.id}-${policy}`,
							}}
						/>
					))}
				</ChoiceGroup>
				<datalist id="columns">
					{loaderData.columns.map((c) => (
						<option key={c} value={c} />
					))}
				</datalist>
				<SubmitButton pending={saving} pendingText="Saving…">
					{editing ? 'Save chain changes' : 'Save chain'}
				</SubmitButton>
			</Form>
		</Card>
	)
}
