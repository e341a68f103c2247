import { parseWithZod } from '../utils/form-bounds.ts'
import { data } from 'react-router'
import type { Route } from './+types/enrichments'
import { ChainForm } from '../components/enrichments/chain-form.tsx'
import { EnrichmentForm } from '../components/enrichments/enrichment-form.tsx'
import { temperatureText } from '../components/enrichments/temperature-field.tsx'
import type { EnrichmentsActionResult } from '../components/enrichments/enrichments-page.ts'
import { SavedItems } from '../components/lists/saved-items.tsx'
import { PageHeader } from '../components/ui/card.tsx'
import { FormErrors } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import {
	createChain,
	createEnrichment,
	deleteChain,
	deleteEnrichment,
	previewEnrichment,
	updateChain,
	updateEnrichment,
} from '../services/enrichments/enrichments.server.ts'
import { readEnrichmentsPage } from '../services/enrichments/enrichments-page.server.ts'
import {
	ChainFormSchema,
	DeleteSchema,
	EnrichmentFormSchema,
	STEP_LABELS,
} from '../services/enrichments/schemas.ts'
import { CONDITION_LABELS } from '../services/enrichments/template.ts'
import { formErrorReply } from '../utils/form-errors.server.ts'
import { FormError, notFound } from '../utils/http-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

// The saved AI enrichments and chains, and the forms that make and edit them (the forms in
// app/components/enrichments). The loader reads everything in one statement (decision 0074).

export async function loader({ request, context }: Route.LoaderArgs) {
	const params = new URL(request.url).searchParams
	const listParam = params.get('list')
	// ?edit=<id> and ?editChain=<id> turn the forms into edit forms (another account's id: 404)
	const page = await readEnrichmentsPage(context.get(requestContext).account, {
		editId: params.get('edit'),
		editChainId: params.get('editChain'),
	})
	return {
		...page,
		defaultListId: page.lists.find((l) => l.id === listParam)?.id ?? page.lists[0]?.id ?? '',
	}
}

type ActionResult = EnrichmentsActionResult

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
			return formErrorReply(error, submission, { intent, preview: null })
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
			return formErrorReply(error, submission, { intent, preview: null })
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
		return formErrorReply(error, submission, { intent, preview: null })
	}
}

export default function Enrichments({ loaderData, actionData }: Route.ComponentProps) {
	const result = actionData as ActionResult | undefined
	// why a delete was refused (a chain uses the enrichment), under the row it was for
	const deleteError = (intent: 'delete-enrichment' | 'delete-chain', id: string) => {
		const refused =
			result?.intent === intent &&
			(result.result.initialValue as { id?: string } | undefined)?.id === id
		return refused ? (
			<FormErrors errors={result.result.error?.[''] ?? result.result.error?.id} />
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
					<SavedItems
						id="your-enrichments"
						title="Your AI enrichments"
						testId="enrichment-list"
						items={loaderData.enrichments.map((e) => ({
							id: e.id,
							name: e.name,
							editing: loaderData.editing?.id === e.id,
							details: (
								<>
									<p className="text-slate-600">
										→ {e.outputColumn} ·{' '}
										{e.format.kind === 'json'
											? `JSON: ${e.format.fields.map((f) => f.name).join(', ')}`
											: 'text'}{' '}
										· {e.model} · {temperatureText(e.temperature)}
									</p>
									<p className="mt-1 text-slate-500">{e.prompt}</p>
								</>
							),
							editTo: editLink('edit', e.id),
							deleteConsequence: `The enrichment “${e.name}” is deleted; the columns it already filled stay.`,
							deleteFields: { intent: 'delete-enrichment', id: e.id },
							error: deleteError('delete-enrichment', e.id),
						}))}
					/>
					<SavedItems
						id="your-chains"
						title="Your chains"
						items={loaderData.chains.map((c) => ({
							id: c.id,
							name: c.name,
							editing: loaderData.editingChain?.id === c.id,
							details: (
								<ol className="mt-1 list-decimal pl-5 text-slate-600">
									{c.steps.map((s, i) => (
										<li key={i}>
											{s.kind === 'ai'
												? (loaderData.enrichments.find((e) => e.id === s.enrichmentId)?.name ??
													'AI enrichment')
												: s.kind === 'verify-email'
													? `Verify email in ${s.outputColumn} (${c.catchAll === 'accept' ? 'catch-all accepted' : 'only safe to send'})`
													: `${STEP_LABELS[s.kind]} → ${s.outputColumn}`}
											{s.condition
												? ` (only if ${s.condition.column} ${CONDITION_LABELS[s.condition.op]}${s.condition.value ? ` “${s.condition.value}”` : ''})`
												: ''}
										</li>
									))}
								</ol>
							),
							editTo: editLink('editChain', c.id),
							deleteConsequence: `The chain “${c.name}” is deleted; its enrichments and the columns it filled stay.`,
							deleteFields: { intent: 'delete-chain', id: c.id },
							error: deleteError('delete-chain', c.id),
						}))}
					/>
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
