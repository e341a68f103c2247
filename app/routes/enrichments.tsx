import {
	getFormProps,
	getInputProps,
	getTextareaProps,
	useForm,
	type SubmissionResult,
} from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { parseWithZod } from '../utils/form-bounds.ts'
import { data, Form, Link, useLocation } from 'react-router'
import type { z } from 'zod'
import type { Route } from './+types/enrichments'
import {
	TemperatureField,
	temperatureText,
	temperatureValue,
} from '../components/enrichments/temperature-field.tsx'
import { ConfirmDelete } from '../components/lists/confirm-delete.tsx'
import { Button, buttonClasses, SubmitButton } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { Badge, Choice, ChoiceGroup } from '../components/ui/choice.tsx'
import { ErrorList, Field, FormErrors, inputClasses } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import {
	createChain,
	createEnrichment,
	deleteChain,
	deleteEnrichment,
	findChain,
	findEnrichment,
	knownColumns,
	listChains,
	listEnrichments,
	listsForPreview,
	previewEnrichment,
	updateChain,
	updateEnrichment,
	type Chain,
	type Enrichment,
	type Preview,
	type PreviewRow,
} from '../services/enrichments/enrichments.server.ts'
import {
	CHAIN_STEP_SLOTS,
	ChainFormSchema,
	DeleteSchema,
	EnrichmentFormSchema,
	STEP_LABELS,
	STEP_KINDS,
} from '../services/enrichments/schemas.ts'
import { COMPANY_COLUMNS, CONDITION_LABELS } from '../services/enrichments/template.ts'
import { actingAccount } from '../services/workspaces/access.server.ts'
import { useIsPending } from '../utils/forms.ts'
import { FormError, notFound, replyWithFormError } from '../utils/http-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

export async function loader({ request, context }: Route.LoaderArgs) {
	const account = actingAccount(context.get(requestContext).account)
	const lists = await listsForPreview(account)
	const params = new URL(request.url).searchParams
	const listParam = params.get('list')
	// ?edit=<id> and ?editChain=<id> turn the forms into edit forms (another account's id: 404)
	const editId = params.get('edit')
	const editChainId = params.get('editChain')
	return {
		enrichments: await listEnrichments(account),
		chains: await listChains(account),
		columns: await knownColumns(account),
		lists,
		defaultListId: lists.find((l) => l.id === listParam)?.id ?? lists[0]?.id ?? '',
		editing: editId === null ? null : await findEnrichment(account, editId),
		editingChain: editChainId === null ? null : await findChain(account, editChainId),
	}
}

type ActionResult = {
	intent: string
	result: SubmissionResult<string[]>
	preview: Preview | null
}

export async function action({ request, context }: Route.ActionArgs) {
	const { account } = context.get(requestContext)
	const formData = await readFormData(request)
	const intent = String(formData.get('intent') ?? '')
	const fail = (result: ActionResult['result']) =>
		data<ActionResult>({ intent, result, preview: null }, { status: 400 })

	if (intent === 'delete-enrichment' || intent === 'delete-chain') {
		const submission = parseWithZod(formData, { schema: DeleteSchema })
		if (submission.status !== 'success') return fail(submission.reply())
		try {
			if (submission.value.intent === 'delete-chain') {
				const chain = await deleteChain(account, submission.value.id)
				return redirectWithSuccess('/enrichments', `Chain “${chain.name}” deleted`)
			}
			const enrichment = await deleteEnrichment(account, submission.value.id)
			return redirectWithSuccess('/enrichments', `Enrichment “${enrichment.name}” deleted`)
		} catch (error) {
			if (!(error instanceof FormError)) throw error
			return fail(replyWithFormError(submission, error))
		}
	}

	if (intent === 'create-chain' || intent === 'update-chain') {
		const submission = parseWithZod(formData, { schema: ChainFormSchema })
		// moving or removing a step without JavaScript: the form comes back rearranged
		if (submission.status === undefined)
			return data<ActionResult>({ intent, result: submission.reply(), preview: null })
		if (submission.status !== 'success') return fail(submission.reply())
		const value = submission.value
		try {
			if (value.intent === 'update-chain') {
				if (!value.id) notFound('This chain')
				const chain = await updateChain(account, value.id, value)
				return redirectWithSuccess('/enrichments#your-chains', `Chain “${chain.name}” saved`)
			}
			const chain = await createChain(account, value)
			return redirectWithSuccess('/enrichments#your-chains', `Chain “${chain.name}” saved`)
		} catch (error) {
			if (!(error instanceof FormError)) throw error
			return fail(replyWithFormError(submission, error))
		}
	}

	const submission = parseWithZod(formData, { schema: EnrichmentFormSchema })
	if (submission.status !== 'success') return fail(submission.reply())
	const value = submission.value
	try {
		if (value.intent === 'preview') {
			if (!value.listId) throw new FormError('Choose a list to preview on.', 'listId')
			const preview = await previewEnrichment(account, { ...value, listId: value.listId })
			return data<ActionResult>({ intent, result: submission.reply(), preview })
		}
		if (value.intent === 'update-enrichment') {
			if (!value.id) notFound('This enrichment')
			const saved = await updateEnrichment(account, value.id, value)
			return redirectWithSuccess(
				'/enrichments#your-enrichments',
				`Enrichment “${saved.name}” saved`,
			)
		}
		const saved = await createEnrichment(account, value)
		return redirectWithSuccess('/enrichments#your-enrichments', `Enrichment “${saved.name}” saved`)
	} catch (error) {
		if (!(error instanceof FormError)) throw error
		return fail(replyWithFormError(submission, error))
	}
}

function formatOutput(output: PreviewRow['output']) {
	if (output === null) return ''
	return typeof output === 'string' ? output : JSON.stringify(output)
}

/** The form's values for a saved enrichment. */
function enrichmentValues(e: Enrichment) {
	return {
		id: e.id,
		name: e.name,
		prompt: e.prompt,
		outputColumn: e.outputColumn,
		outputFormat: e.format.kind,
		outputFields:
			e.format.kind === 'json' ? e.format.fields.map((f) => `${f.name}:${f.type}`).join(', ') : '',
		model: e.model,
		temperature: temperatureValue(e.temperature),
	}
}

function EnrichmentForm({
	loaderData,
	actionData,
	editing,
}: {
	loaderData: Route.ComponentProps['loaderData']
	actionData: ActionResult | undefined
	editing: Enrichment | null
}) {
	const location = useLocation()
	const saveIntent = editing ? 'update-enrichment' : 'create-enrichment'
	const saving = useIsPending(saveIntent)
	const previewing = useIsPending('preview')
	const [form, fields] = useForm<z.input<typeof EnrichmentFormSchema>>({
		id: editing ? 'enrichment-edit' : 'enrichment',
		lastResult:
			actionData?.intent === saveIntent || actionData?.intent === 'preview'
				? actionData.result
				: undefined,
		constraint: getZodConstraint(EnrichmentFormSchema),
		defaultValue: {
			outputFormat: 'text',
			model: 'gpt-4o-mini',
			...(editing ? enrichmentValues(editing) : {}),
			listId: loaderData.defaultListId,
		},
		onValidate: ({ formData }) => parseWithZod(formData, { schema: EnrichmentFormSchema }),
		shouldRevalidate: 'onInput',
	})
	return (
		<Card>
			<div className="flex items-baseline justify-between gap-4">
				<h2 id="enrichment-form" className="scroll-mt-4 text-lg font-semibold">
					{editing ? `Edit AI enrichment “${editing.name}”` : 'New AI enrichment'}
				</h2>
				{editing ? (
					<Link to="/enrichments" className="text-sm text-slate-600 underline">
						Cancel editing
					</Link>
				) : null}
			</div>
			{editing ? (
				<p className="mt-1 text-sm text-slate-600">
					Runs already started keep the prompt and settings they started with.
				</p>
			) : null}
			{/* without JavaScript the answer page opens at this form (below the lists on a phone) */}
			<Form
				method="post"
				action={`${location.pathname}${location.search}#enrichment-form`}
				className="mt-4 space-y-4"
				{...getFormProps(form)}
			>
				{editing ? <input type="hidden" name="id" value={editing.id} /> : null}
				<FormErrors id={form.errorId} errors={form.errors} />
				<Field
					label="Name"
					errors={fields.name.errors}
					inputProps={getInputProps(fields.name, { type: 'text' })}
				/>
				<div>
					<label htmlFor={fields.prompt.id} className="block text-sm font-medium text-slate-800">
						Prompt
					</label>
					<textarea
						{...getTextareaProps(fields.prompt)}
						rows={5}
						className={`mt-1 ${inputClasses}`}
						placeholder="What does {{company_name}} sell? Answer in five words."
					/>
					<ErrorList id={fields.prompt.errorId} errors={fields.prompt.errors} />
					<p className="mt-1 text-sm text-slate-600">
						Columns: {loaderData.columns.map((c) => `{{${c}}}`).join(' ')}
					</p>
					<p className="mt-1 text-sm text-slate-600">
						On company lists: {COMPANY_COLUMNS.map((c) => `{{${c}}}`).join(' ')}
					</p>
				</div>
				<Field
					label="Output column"
					hint="Where the answer goes on each lead, e.g. company_summary."
					errors={fields.outputColumn.errors}
					inputProps={getInputProps(fields.outputColumn, { type: 'text' })}
				/>
				<ChoiceGroup
					legend="Output format"
					errors={fields.outputFormat.errors}
					errorId={fields.outputFormat.errorId}
				>
					<Choice
						label="Text"
						inputProps={{
							...getInputProps(fields.outputFormat, { type: 'radio', value: 'text' }),
							id: `${fields.outputFormat.id}-text`,
						}}
					/>
					<Choice
						label="JSON fields"
						description="The answer is checked against these fields."
						inputProps={{
							...getInputProps(fields.outputFormat, { type: 'radio', value: 'json' }),
							id: `${fields.outputFormat.id}-json`,
						}}
					/>
				</ChoiceGroup>
				<Field
					label="JSON fields (for JSON output)"
					hint="name:type pairs, e.g. industry:string, employees:number, b2b:boolean"
					errors={fields.outputFields.errors}
					inputProps={getInputProps(fields.outputFields, { type: 'text' })}
				/>
				<div className="grid gap-4 sm:grid-cols-2">
					<Field
						label="Model"
						errors={fields.model.errors}
						inputProps={getInputProps(fields.model, { type: 'text' })}
					/>
					<TemperatureField field={fields.temperature} />
				</div>
				<div>
					<label htmlFor={fields.listId.id} className="block text-sm font-medium text-slate-800">
						Preview on 5 rows of
					</label>
					<select
						id={fields.listId.id}
						name={fields.listId.name}
						defaultValue={loaderData.defaultListId}
						className={`mt-1 ${inputClasses}`}
					>
						<option value="">Choose a list</option>
						{(['leads', 'companies'] as const).map((kind) => {
							const lists = loaderData.lists.filter((l) => l.kind === kind)
							return lists.length > 0 ? (
								<optgroup key={kind} label={kind === 'leads' ? 'Lead lists' : 'Company lists'}>
									{lists.map((l) => (
										<option key={l.id} value={l.id}>
											{l.name} ({l.found} {kind})
										</option>
									))}
								</optgroup>
							) : null
						})}
					</select>
					<ErrorList id={fields.listId.errorId} errors={fields.listId.errors} />
				</div>
				<div className="flex flex-wrap gap-3">
					<SubmitButton
						name="intent"
						value="preview"
						variant="secondary"
						pending={previewing}
						pendingText="Previewing…"
					>
						Preview on 5 rows
					</SubmitButton>
					<SubmitButton name="intent" value={saveIntent} pending={saving} pendingText="Saving…">
						{editing ? 'Save changes' : 'Save enrichment'}
					</SubmitButton>
				</div>
			</Form>
			{actionData?.preview ? (
				<div className="mt-6" data-testid="preview">
					<h3 className="font-semibold">Preview (free, nothing is written)</h3>
					<div
						className="relative mt-2 overflow-x-auto focus-visible:outline-2 focus-visible:outline-indigo-600"
						// focusable, so the keyboard can scroll it too
						tabIndex={0}
						role="region"
						aria-label="Preview"
					>
						<table className="w-full text-left text-sm">
							<thead>
								<tr className="text-slate-600">
									<th className="py-1 pr-4">
										{actionData.preview.kind === 'leads' ? 'Lead' : 'Company'}
									</th>
									<th className="min-w-48 py-1 pr-4">Prompt</th>
									<th className="min-w-48 py-1">Answer</th>
								</tr>
							</thead>
							<tbody>
								{actionData.preview.rows.map((row) => (
									<tr key={row.id} className="border-t border-slate-100 align-top">
										<td className="py-1 pr-4">{row.label}</td>
										<td className="py-1 pr-4 text-slate-600">{row.prompt}</td>
										<td className="py-1">
											{row.error ? (
												<span className="text-red-700">{row.error}</span>
											) : (
												formatOutput(row.output)
											)}
										</td>
									</tr>
								))}
							</tbody>
						</table>
					</div>
				</div>
			) : null}
		</Card>
	)
}

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

function ChainForm({
	loaderData,
	actionData,
	editing,
}: {
	loaderData: Route.ComponentProps['loaderData']
	actionData: ActionResult | undefined
	editing: Chain | null
}) {
	const location = useLocation()
	const intent = editing ? 'update-chain' : 'create-chain'
	const saving = useIsPending(intent)
	const [form, fields] = useForm<z.input<typeof ChainFormSchema>>({
		id: editing ? 'chain-edit' : 'chain',
		lastResult: actionData?.intent === intent ? actionData.result : undefined,
		constraint: getZodConstraint(ChainFormSchema),
		defaultValue: { name: editing?.name ?? '', steps: chainSlots(editing) },
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
									Output column (built-in steps)
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

export default function Enrichments({ loaderData, actionData }: Route.ComponentProps) {
	const result = actionData as ActionResult | undefined
	// why a delete was refused (a chain uses the enrichment), under the row it was for
	const deleteError = (intent: 'delete-enrichment' | 'delete-chain', id: string) => {
		const refused =
			result?.intent === intent &&
			(result.result.initialValue as { id?: string } | undefined)?.id === id
		return refused ? (
			<div className="w-full">
				<FormErrors errors={result.result.error?.[''] ?? result.result.error?.id} />
			</div>
		) : null
	}
	// the link lands on the form: on a phone it is far below the lists
	const editLink = (param: 'edit' | 'editChain', id: string) =>
		`/enrichments?${new URLSearchParams({ [param]: id, ...(loaderData.defaultListId ? { list: loaderData.defaultListId } : {}) })}#${param === 'edit' ? 'enrichment-form' : 'chain-form'}`
	return (
		<>
			<PageHeader
				title="Enrichments"
				description="AI enrichments fill a column on every lead of a list from a prompt. Run them, or a chain of them, from a list's Enrich page."
			/>
			<div className="grid grid-cols-1 gap-6 xl:grid-cols-2">
				<div className="space-y-6">
					<Card>
						<h2 id="your-enrichments" className="scroll-mt-4 text-lg font-semibold">
							Your AI enrichments
						</h2>
						{loaderData.enrichments.length === 0 ? (
							<p className="mt-2 text-sm text-slate-600">None yet.</p>
						) : (
							<ul className="mt-2 divide-y divide-slate-100" data-testid="enrichment-list">
								{loaderData.enrichments.map((e) => (
									<li
										key={e.id}
										className="flex flex-wrap items-start justify-between gap-x-4 gap-y-2 py-3"
									>
										<div className="min-w-0 flex-1 basis-60 text-sm wrap-anywhere">
											<p className="font-medium">
												{e.name}{' '}
												{loaderData.editing?.id === e.id ? (
													<Badge tone="indigo">Editing</Badge>
												) : null}
											</p>
											<p className="text-slate-600">
												→ {e.outputColumn} ·{' '}
												{e.format.kind === 'json'
													? `JSON: ${e.format.fields.map((f) => f.name).join(', ')}`
													: 'text'}{' '}
												· {e.model} · {temperatureText(e.temperature)}
											</p>
											<p className="mt-1 text-slate-500">{e.prompt}</p>
										</div>
										<div className="flex shrink-0 items-center gap-1">
											<Link
												to={editLink('edit', e.id)}
												className={buttonClasses('ghost')}
												aria-label={`Edit ${e.name}`}
											>
												Edit
											</Link>
											<ConfirmDelete
												name={e.name}
												consequence={`The enrichment “${e.name}” is deleted; the columns it already filled stay.`}
												fields={{ intent: 'delete-enrichment', id: e.id }}
											/>
										</div>
										{deleteError('delete-enrichment', e.id)}
									</li>
								))}
							</ul>
						)}
					</Card>
					<Card>
						<h2 id="your-chains" className="scroll-mt-4 text-lg font-semibold">
							Your chains
						</h2>
						{loaderData.chains.length === 0 ? (
							<p className="mt-2 text-sm text-slate-600">None yet.</p>
						) : (
							<ul className="mt-2 divide-y divide-slate-100">
								{loaderData.chains.map((c) => (
									<li
										key={c.id}
										className="flex flex-wrap items-start justify-between gap-x-4 gap-y-2 py-3"
									>
										<div className="min-w-0 flex-1 basis-60 text-sm wrap-anywhere">
											<p className="font-medium">
												{c.name}{' '}
												{loaderData.editingChain?.id === c.id ? (
													<Badge tone="indigo">Editing</Badge>
												) : null}
											</p>
											<ol className="mt-1 list-decimal pl-5 text-slate-600">
												{c.steps.map((s, i) => (
													<li key={i}>
														{s.kind === 'ai'
															? (loaderData.enrichments.find((e) => e.id === s.enrichmentId)
																	?.name ?? 'AI enrichment')
															: `${STEP_LABELS[s.kind]} → ${s.outputColumn}`}
														{s.condition
															? ` (only if ${s.condition.column} ${CONDITION_LABELS[s.condition.op]}${s.condition.value ? ` “${s.condition.value}”` : ''})`
															: ''}
													</li>
												))}
											</ol>
										</div>
										<div className="flex shrink-0 items-center gap-1">
											<Link
												to={editLink('editChain', c.id)}
												className={buttonClasses('ghost')}
												aria-label={`Edit ${c.name}`}
											>
												Edit
											</Link>
											<ConfirmDelete
												name={c.name}
												consequence={`The chain “${c.name}” is deleted; its enrichments and the columns it filled stay.`}
												fields={{ intent: 'delete-chain', id: c.id }}
											/>
										</div>
										{deleteError('delete-chain', c.id)}
									</li>
								))}
							</ul>
						)}
					</Card>
					<ChainForm
						// a chain saved: a new, empty form (a second click must not save it twice)
						key={loaderData.editingChain?.id ?? `new-${loaderData.chains.length}`}
						loaderData={loaderData}
						actionData={result}
						editing={loaderData.editingChain}
					/>
				</div>
				<EnrichmentForm
					key={loaderData.editing?.id ?? `new-${loaderData.enrichments.length}`}
					loaderData={loaderData}
					actionData={result}
					editing={loaderData.editing}
				/>
			</div>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Enrichments')
