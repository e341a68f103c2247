import { createHash } from 'node:crypto'
import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import { getConfig } from '../../config.server.ts'
import type { AccountContext } from '../../context.server.ts'
import {
	createModelClient,
	ModelError,
	type OutputField,
	type OutputFormat,
} from '../../integrations/openai.server.ts'
import { FormError, isUuid, notFound, statusOf } from '../../utils/http-errors.server.ts'
import { getProviderKey } from '../api-keys/get-provider-key.server.ts'
import { COMPANY_SORT_KEY } from '../lists/companies-page.server.ts'
import { findCompanyList, findLeadList } from '../lists/find-list.server.ts'
import { actingAccount, canUseWorkspace, type ActingAccount } from '../workspaces/access.server.ts'
import { parseOutputFields, type EnrichmentFields } from './schemas.ts'
import type { z } from 'zod'
import {
	COMPANY_COLUMNS,
	LEAD_COLUMNS,
	placeholders,
	renderPrompt,
	type CompanyRow,
	type Condition,
	type LeadRow,
	type RowColumns,
	type RunRow,
} from './template.ts'

export type Enrichment = {
	id: string
	name: string
	prompt: string
	outputColumn: string
	format: OutputFormat
	model: string
	/** null: the model's own default, and none is sent (issue 39 point 6) */
	temperature: number | null
	createdAt: Date
}

/**
 * A built-in step's `outputColumn` is the column it fills; for 'verify-email' the column of the
 * email it checks (it writes the answer to `<column>_status`).
 */
export type ChainStep =
	| { kind: 'ai'; enrichmentId: string; condition: Condition | null }
	| {
			kind: 'email-guess' | 'company-domain' | 'verify-email'
			outputColumn: string
			condition: Condition | null
	  }

/**
 * What a chain's Verify email steps count as verified: 'safe' (only safe to send: valid only,
 * so a catch-all lets the next finder run) or 'accept' (valid and catch-all). Unknown never is.
 */
export type CatchAllPolicy = 'safe' | 'accept'

export type Chain = {
	id: string
	name: string
	steps: ChainStep[]
	catchAll: CatchAllPolicy
	createdAt: Date
}

/** Built-in steps' default output columns (a Verify email step: the column it checks). */
export const BUILT_IN_OUTPUTS = {
	'email-guess': 'email_guess',
	'company-domain': 'company_domain_guess',
	'verify-email': 'email_guess',
}

type EnrichmentRow = {
	id: string
	name: string
	prompt: string
	output_column: string
	output_format: string
	output_fields: unknown
	model: string
	temperature: number | null
	created_at: Date
}

export function toEnrichment(row: EnrichmentRow): Enrichment {
	return {
		id: row.id,
		name: row.name,
		prompt: row.prompt,
		outputColumn: row.output_column,
		format:
			row.output_format === 'json'
				? { kind: 'json', fields: row.output_fields as OutputField[] }
				: { kind: 'text' },
		model: row.model,
		temperature: row.temperature === null ? null : Number(row.temperature),
		createdAt: row.created_at,
	}
}

export const ENRICHMENT_COLUMNS = [
	'id',
	'name',
	'prompt',
	'output_column',
	'output_format',
	'output_fields',
	'model',
	'temperature',
	'created_at',
] as const

export async function listEnrichments(context: AccountContext | null) {
	const account = actingAccount(context)
	const rows = await db
		.selectFrom('ai_enrichments')
		.select(ENRICHMENT_COLUMNS)
		.where('user_id', '=', account.accountId)
		.orderBy('created_at')
		.execute()
	return rows.map(toEnrichment)
}

export async function findEnrichment(context: AccountContext | null, id: unknown) {
	const account = actingAccount(context)
	if (!isUuid(id)) notFound('This enrichment')
	const row = await db
		.selectFrom('ai_enrichments')
		.select(ENRICHMENT_COLUMNS)
		.where('user_id', '=', account.accountId)
		.where('id', '=', id)
		.executeTakeFirst()
	if (!row) notFound('This enrichment')
	return toEnrichment(row)
}

/** Keys of leads.data in a list (from a sample of its leads): CSV extras and earlier outputs. */
async function listDataKeys(listId: string) {
	const { rows } = await sql<{ key: string }>`
		select distinct jsonb_object_keys(data) as key
		from (select data from leads where list_id = ${listId} order by id limit 200) sample`.execute(db)
	return rows.map((r) => r.key)
}

/**
 * Every column a prompt or condition may name: lead columns, the account's enrichment
 * outputs (and `output.field` for JSON ones), built-in step outputs, and leads.data keys of
 * the chosen list.
 */
export async function knownColumns(context: AccountContext | null, listId?: string) {
	const columns = leadColumns(await listEnrichments(context))
	if (listId) {
		await findLeadList(context, listId)
		for (const key of await listDataKeys(listId)) columns.add(key)
	}
	return [...columns]
}

/** Lead columns, built-in step outputs and what `enrichments` fill (before any list's own keys). */
export function leadColumns(enrichments: Enrichment[]) {
	const columns = new Set<string>([...LEAD_COLUMNS, ...Object.values(BUILT_IN_OUTPUTS)])
	for (const e of enrichments) for (const column of columnsOf(e)) columns.add(column)
	return columns
}

/**
 * Every column a prompt or condition may name on a company list: company columns, the
 * account's enrichment outputs (and `output.field`), and companies.data keys of the list.
 */
export async function companyColumns(context: AccountContext | null, companyListId: string) {
	const { list } = await findCompanyList(context, companyListId)
	const columns = new Set<string>(COMPANY_COLUMNS)
	for (const e of await listEnrichments(context))
		for (const column of columnsOf(e)) columns.add(column)
	const { rows } = await sql<{ key: string }>`
		select distinct jsonb_object_keys(data) as key
		from (select data from companies where list_id = ${list.id} order by id limit 200) sample`.execute(
		db,
	)
	for (const r of rows) columns.add(r.key)
	return [...columns]
}

type EnrichmentInput = z.output<typeof EnrichmentFields>

/**
 * The columns of the list chosen for the preview, lead list or company list: saving only
 * learns its CSV and output keys from it. A list the user may not use adds nothing (the
 * preview list does not decide whether an enrichment can be saved).
 */
async function previewListColumns(context: AccountContext | null, listId: string | undefined) {
	if (!listId) return []
	try {
		return (await previewListKind(context, listId)) === 'leads'
			? await knownColumns(context, listId)
			: await companyColumns(context, listId)
	} catch (error) {
		if (statusOf(error) !== 404) throw error
		return []
	}
}

/** The columns an enrichment fills: its output column, and `output.field` for JSON fields. */
function columnsOf(e: { outputColumn: string; format: OutputFormat }) {
	return [
		e.outputColumn,
		...(e.format.kind === 'json' ? e.format.fields.map((f) => `${e.outputColumn}.${f.name}`) : []),
	]
}

/**
 * Checks placeholders and the output column; returns the enrichment as it would be saved.
 * When editing, the enrichment's own columns do not collide with it.
 */
async function validate(
	context: AccountContext | null,
	input: EnrichmentInput,
	editing?: Enrichment,
) {
	const own = editing ? columnsOf(editing) : []
	// a prompt may be meant for company lists: their columns are known too (and not outputs)
	const columns = [
		...new Set([
			...(await knownColumns(context)),
			...COMPANY_COLUMNS,
			...(await previewListColumns(context, input.listId)),
		]),
	].filter((c) => !own.includes(c))
	if (
		placeholders(input.prompt).some(
			(p) => p === input.outputColumn || p.startsWith(`${input.outputColumn}.`),
		)
	)
		throw new FormError('The prompt cannot use its own output column.', 'prompt')
	const unknown = placeholders(input.prompt).filter((p) => !columns.includes(p))
	if (unknown.length)
		throw new FormError(
			`Unknown column${unknown.length > 1 ? 's' : ''}: ${unknown.map((u) => `{{${u}}}`).join(', ')}. Use a lead column or an earlier output.`,
			'prompt',
		)
	if (columns.includes(input.outputColumn))
		throw new FormError(
			`“${input.outputColumn}” is already a column. Choose another output column.`,
			'outputColumn',
		)
	let format: OutputFormat = { kind: 'text' }
	if (input.outputFormat === 'json') {
		const parsed = parseOutputFields(input.outputFields ?? '')
		if ('error' in parsed) throw new FormError(parsed.error, 'outputFields')
		format = { kind: 'json', fields: parsed.fields }
	}
	return { format }
}

export async function createEnrichment(context: AccountContext | null, input: EnrichmentInput) {
	const account = actingAccount(context)
	const { format } = await validate(account, input)
	const row = await db
		.insertInto('ai_enrichments')
		.values({
			user_id: account.accountId,
			name: input.name,
			prompt: input.prompt,
			output_column: input.outputColumn,
			output_format: format.kind,
			output_fields: JSON.stringify(format.kind === 'json' ? format.fields : []),
			model: input.model,
			temperature: input.temperature,
		})
		.onConflict((oc) => oc.doNothing())
		.returning(['id', 'name'])
		.executeTakeFirst()
	if (!row)
		throw new FormError(
			`“${input.outputColumn}” is already a column. Choose another.`,
			'outputColumn',
		)
	return row
}

/**
 * Changes an enrichment with the same checks as creating it. Runs already started keep the
 * snapshot of it they took. A column it stops filling may not be one that another enrichment's
 * prompt or a chain's condition reads.
 */
export async function updateEnrichment(
	context: AccountContext | null,
	id: string,
	input: EnrichmentInput,
) {
	const account = actingAccount(context)
	const current = await findEnrichment(account, id)
	const { format } = await validate(account, input, current)
	const kept = columnsOf({ outputColumn: input.outputColumn, format })
	const dropped = columnsOf(current).filter((c) => !kept.includes(c))
	if (dropped.length) {
		const field = dropped.includes(current.outputColumn) ? 'outputColumn' : 'outputFields'
		const reader = (await listEnrichments(account)).find(
			(e) => e.id !== id && placeholders(e.prompt).some((p) => dropped.includes(p)),
		)
		if (reader)
			throw new FormError(
				`The enrichment “${reader.name}” reads ${dropped.map((c) => `{{${c}}}`).join(', ')}. Change its prompt first.`,
				field,
			)
		const chain = (await listChains(account)).find((c) =>
			c.steps.some((step) => step.condition && dropped.includes(step.condition.column)),
		)
		if (chain)
			throw new FormError(
				`The chain “${chain.name}” runs a step only if ${dropped.join(', ')} holds. Change it first.`,
				field,
			)
	}
	try {
		await db
			.updateTable('ai_enrichments')
			.set({
				name: input.name,
				prompt: input.prompt,
				output_column: input.outputColumn,
				output_format: format.kind,
				output_fields: JSON.stringify(format.kind === 'json' ? format.fields : []),
				model: input.model,
				temperature: input.temperature,
				updated_at: sql`now()`,
			})
			.where('user_id', '=', account.accountId)
			.where('id', '=', id)
			.execute()
	} catch (error) {
		// another enrichment took the output column meanwhile (ai_enrichments_user_output_key)
		if ((error as { code?: string }).code === '23505')
			throw new FormError(
				`“${input.outputColumn}” is already a column. Choose another.`,
				'outputColumn',
			)
		throw error
	}
	return { id, name: input.name }
}

export async function deleteEnrichment(context: AccountContext | null, id: string) {
	const account = actingAccount(context)
	const enrichment = await findEnrichment(account, id)
	const chains = await listChains(account)
	const user = chains.find((c) => c.steps.some((s) => s.kind === 'ai' && s.enrichmentId === id))
	if (user) throw new FormError(`The chain “${user.name}” uses this enrichment. Delete it first.`)
	await db
		.deleteFrom('ai_enrichments')
		.where('user_id', '=', account.accountId)
		.where('id', '=', id)
		.execute()
	return enrichment
}

export async function listChains(context: AccountContext | null): Promise<Chain[]> {
	const account = actingAccount(context)
	const rows = await db
		.selectFrom('enrichment_chain')
		.select(['id', 'name', 'steps', 'catch_all_policy', 'created_at'])
		.where('user_id', '=', account.accountId)
		.orderBy('created_at')
		.execute()
	return rows.map(toChain)
}

export function toChain(row: {
	id: string
	name: string
	steps: unknown
	catch_all_policy?: string | null
	created_at: Date
}): Chain {
	return {
		id: row.id,
		name: row.name,
		steps: row.steps as ChainStep[],
		catchAll: row.catch_all_policy === 'accept' ? 'accept' : 'safe',
		createdAt: row.created_at,
	}
}

export async function findChain(context: AccountContext | null, id: unknown) {
	if (!isUuid(id)) notFound('This chain')
	const chain = (await listChains(context)).find((c) => c.id === id)
	if (!chain) notFound('This chain')
	return chain
}

export type ChainStepInput = {
	kind: '' | 'ai' | 'email-guess' | 'company-domain' | 'verify-email'
	enrichmentId?: string
	outputColumn?: string
	conditionColumn?: string
	conditionOp?: Condition['op']
	conditionValue?: string
}

/** The form's step slots as saved steps, in order; empty slots are left out. */
async function chainSteps(account: AccountContext, input: ChainStepInput[]) {
	const enrichments = await listEnrichments(account)
	// a chain may be meant for company lists: a condition may name a company column
	const columns = [...(await knownColumns(account)), ...COMPANY_COLUMNS]
	const steps: ChainStep[] = []
	for (const [index, step] of input.entries()) {
		if (step.kind === '') continue
		let condition: Condition | null = null
		if (step.conditionColumn) {
			if (!columns.includes(step.conditionColumn))
				throw new FormError(
					`Unknown column “${step.conditionColumn}”.`,
					`steps[${index}].conditionColumn`,
				)
			condition = {
				column: step.conditionColumn,
				op: step.conditionOp ?? 'empty',
				value: step.conditionValue ?? '',
			}
		}
		if (step.kind === 'ai') {
			if (!enrichments.some((e) => e.id === step.enrichmentId))
				throw new FormError('Choose one of your AI enrichments.', `steps[${index}].enrichmentId`)
			steps.push({ kind: 'ai', enrichmentId: step.enrichmentId!, condition })
		} else {
			steps.push({
				kind: step.kind,
				outputColumn: step.outputColumn || BUILT_IN_OUTPUTS[step.kind],
				condition,
			})
		}
	}
	if (steps.length === 0) throw new FormError('Add at least one step.', 'steps')
	return steps
}

/** A chain as its form sends it; no policy: only safe to send. */
export type ChainInput = { name: string; steps: ChainStepInput[]; catchAll?: CatchAllPolicy }

export async function createChain(context: AccountContext | null, input: ChainInput) {
	const account = actingAccount(context)
	const steps = await chainSteps(account, input.steps)
	return db
		.insertInto('enrichment_chain')
		.values({
			user_id: account.accountId,
			name: input.name,
			steps: JSON.stringify(steps),
			catch_all_policy: input.catchAll ?? 'safe',
		})
		.returning(['id', 'name'])
		.executeTakeFirstOrThrow()
}

/** Changes a chain's name and steps (order, conditions); runs already started keep theirs. */
export async function updateChain(context: AccountContext | null, id: string, input: ChainInput) {
	const account = actingAccount(context)
	await findChain(account, id)
	const steps = await chainSteps(account, input.steps)
	await db
		.updateTable('enrichment_chain')
		.set({
			name: input.name,
			steps: JSON.stringify(steps),
			catch_all_policy: input.catchAll ?? 'safe',
			updated_at: sql`now()`,
		})
		.where('user_id', '=', account.accountId)
		.where('id', '=', id)
		.execute()
	return { id, name: input.name }
}

export async function deleteChain(context: AccountContext | null, id: string) {
	const account = actingAccount(context)
	const chain = await findChain(account, id)
	await db
		.deleteFrom('enrichment_chain')
		.where('user_id', '=', account.accountId)
		.where('id', '=', id)
		.execute()
	return chain
}

/**
 * sha256 of what decides a model's answer: the rendered prompt, the model, the format and the
 * temperature (null: the model's default, a key of its own).
 */
export function cacheKey(
	prompt: string,
	model: string,
	format: OutputFormat,
	temperature: number | null = 0,
) {
	return createHash('sha256')
		.update(JSON.stringify([prompt, model, format, temperature]))
		.digest('hex')
}

/** Which provider a run or preview calls: the account's own key, or the platform's. */
export async function modelProvider(accountId: string, payWith: 'ownKey' | 'credits') {
	const config = getConfig()
	if (payWith === 'ownKey') {
		const own = await getProviderKey(accountId, 'openai')
		if (!own) return null
		// the account's base URL is a user-set URL: guarded against internal addresses
		return {
			baseUrl: own.baseUrl ?? config.OPENAI_BASE_URL,
			apiKey: own.key,
			userUrl: Boolean(own.baseUrl),
		}
	}
	if (!config.OPENAI_API_KEY) return null
	return { baseUrl: config.OPENAI_BASE_URL, apiKey: config.OPENAI_API_KEY, userUrl: false }
}

export const LEAD_FIELDS = [
	'id',
	'email',
	'first_name',
	'last_name',
	'title',
	'company_name',
	'company_domain',
	'linkedin_url',
	'location',
	'phone',
	'email_status',
	'data',
] as const

export const COMPANY_FIELDS = [
	'id',
	'name',
	'domain',
	'industry',
	'employees',
	'location',
	'linkedin_url',
	'description',
	'data',
] as const

export type PreviewRow = {
	id: string
	/** what the row is: a lead's email, a company's name and domain */
	label: string
	prompt: string
	output: string | Record<string, unknown> | null
	error: string | null
	cached: boolean
}

export type Preview = { kind: 'leads' | 'companies'; rows: PreviewRow[] }

/** Whether `listId` is a lead list or a company list the user may use (neither: 404). */
async function previewListKind(context: AccountContext | null, listId: string) {
	try {
		await findLeadList(context, listId)
		return 'leads' as const
	} catch (error) {
		if (statusOf(error) !== 404) throw error
	}
	await findCompanyList(context, listId)
	return 'companies' as const
}

/**
 * Runs an enrichment (saved or not) on 5 sample rows of a lead or company list, without
 * writing to them: free, with the account's own key when it has one, else the platform's.
 */
export async function previewEnrichment(
	context: AccountContext | null,
	input: EnrichmentInput & { listId: string },
): Promise<Preview> {
	const account = actingAccount(context)
	const kind = await previewListKind(context, input.listId)
	const columns =
		kind === 'leads'
			? await knownColumns(account, input.listId)
			: await companyColumns(account, input.listId)
	const unknown = placeholders(input.prompt).filter((p) => !columns.includes(p))
	if (unknown.length)
		throw new FormError(
			`Unknown column${unknown.length > 1 ? 's' : ''}: ${unknown.map((u) => `{{${u}}}`).join(', ')}.`,
			'prompt',
		)
	let format: OutputFormat = { kind: 'text' }
	if (input.outputFormat === 'json') {
		const parsed = parseOutputFields(input.outputFields ?? '')
		if ('error' in parsed) throw new FormError(parsed.error, 'outputFields')
		format = { kind: 'json', fields: parsed.fields }
	}
	const provider =
		(await modelProvider(account.accountId, 'ownKey')) ??
		(await modelProvider(account.accountId, 'credits'))
	if (!provider)
		throw new FormError('Add an OpenAI-compatible key on the API keys page to preview.')
	const samples: { row: RunRow; label: string }[] =
		kind === 'leads'
			? (
					(await db
						.selectFrom('leads')
						.select(LEAD_FIELDS)
						.where('list_id', '=', input.listId)
						.orderBy('id')
						.limit(5)
						.execute()) as LeadRow[]
				).map((lead) => ({ row: lead, label: lead.email }))
			: (
					(await db
						.selectFrom('companies')
						.select(COMPANY_FIELDS)
						.where('list_id', '=', input.listId)
						// the first five the list page shows (by name; ids are random), on its index
						.orderBy(COMPANY_SORT_KEY.name)
						.orderBy('id')
						.limit(5)
						.execute()) as CompanyRow[]
				).map((company) => ({
					row: company,
					label: [company.name, company.domain && `(${company.domain})`].filter(Boolean).join(' '),
				}))
	if (samples.length === 0) throw new FormError(`This list has no ${kind} to preview on.`, 'listId')
	const rowColumns = kind === 'leads' ? LEAD_COLUMNS : (COMPANY_COLUMNS as RowColumns)
	const prompts = samples.map(({ row, label }) => {
		const prompt = renderPrompt(input.prompt, row, rowColumns)
		return {
			id: row.id,
			label,
			prompt,
			hash: cacheKey(prompt, input.model, format, input.temperature),
		}
	})
	// the answers already known, in one query
	const known = new Map(
		(
			await db
				.selectFrom('enrichment_cache')
				.select(['hash', 'output'])
				.where('user_id', '=', account.accountId)
				.where(
					'hash',
					'in',
					prompts.map((p) => p.hash),
				)
				.execute()
		).map((c) => [c.hash, c.output as PreviewRow['output']]),
	)
	const client = createModelClient(provider)
	const rows = await Promise.all(
		prompts.map(async ({ hash, ...base }): Promise<PreviewRow> => {
			if (known.has(hash)) return { ...base, output: known.get(hash)!, error: null, cached: true }
			try {
				const output = await client.complete({
					model: input.model,
					prompt: base.prompt,
					temperature: input.temperature,
					format,
				})
				return { ...base, output, error: null, cached: false }
			} catch (error) {
				if (!(error instanceof ModelError)) throw error
				return { ...base, output: null, error: error.message, cached: false }
			}
		}),
	)
	return { kind, rows }
}

/** How many of each kind of list the preview offers, the newest. */
export const PREVIEW_LISTS = 100

/** Lead and company lists to preview on: the newest of each the user may use. */
export async function listsForPreview(context: AccountContext | null) {
	const account = actingAccount(context)
	const [leadLists, companyLists] = await Promise.all([
		db
			.selectFrom('processing_list')
			.select(['id', 'name', 'workspace_id', 'found'])
			.where('user_id', '=', account.accountId)
			.orderBy('created_at', 'desc')
			.limit(PREVIEW_LISTS)
			.execute(),
		db
			.selectFrom('company_scraping_list')
			.select(['id', 'name', 'workspace_id', 'found'])
			.where('user_id', '=', account.accountId)
			.orderBy('created_at', 'desc')
			.limit(PREVIEW_LISTS)
			.execute(),
	])
	return previewLists(account, leadLists, companyLists)
}

type ListRow = { id: string; name: string; workspace_id: string | null; found: number }

/** The lists to preview on of those read (newest first): lead lists, then company lists. */
export function previewLists(
	account: ActingAccount,
	leadLists: ListRow[],
	companyLists: ListRow[],
) {
	const usable = (rows: ListRow[], kind: 'leads' | 'companies') =>
		rows
			.filter((r) => canUseWorkspace(account, r.workspace_id))
			.map((r) => ({ id: r.id, name: r.name, found: r.found, kind }))
	return [...usable(leadLists, 'leads'), ...usable(companyLists, 'companies')]
}
