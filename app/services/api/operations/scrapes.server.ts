import type { Kysely, Transaction } from 'kysely'
import { z } from 'zod'
import { db } from '../../../../db/index.server.ts'
import type { DB } from '../../../../db/schema.ts'
import type { AccountContext } from '../../../context.server.ts'
import { checkCompanySource, CreateCompaniesFields } from '../../companies/schemas.ts'
import { createCompanyScrape } from '../../companies/create-company-scrape.server.ts'
import { createLeadScrape } from '../../leads/create-lead-scrape.server.ts'
import { CreateLeadsFields } from '../../leads/schemas.ts'
import { cancelScrape, findScrape, type ListKind } from '../../leads/scrape-lists.server.ts'
import { ApiAnswer, defineOperation } from '../operation.ts'

// Lead scrapes (an Apollo people search) and company searches (domains or an Apollo company
// search) through the create pages' services: the same checks, holds and jobs. A dry run does
// the whole creation in a transaction that is rolled back, so it refuses exactly what the real
// one would (a bad address, a workspace, too few credits) and says what it would cost.

const JobStatus = z
	.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)])
	.meta({ description: '0 pending, 1 processing, 2 finished, 3 failed or cancelled' })

const Cost = z
	.object({
		credits: z.number().int().meta({ description: 'Credits held (0 on your own key).' }),
		pay_with: z.string().nullable().meta({ description: 'credits, apifyKey or apolloKey' }),
	})
	.meta({ id: 'ScrapeCost' })

const scrapeSchema = (object: 'lead_scrape' | 'company_search', id: string) =>
	z
		.object({
			id: z.uuid().meta({ description: 'Also the id of the list it fills.' }),
			object: z.literal(object),
			name: z.string(),
			source: z.string().meta({ description: 'apollo, or domains for a company search' }),
			status: JobStatus,
			requested: z.number().int(),
			found: z.number().int(),
			progress: z.number().int().meta({ description: 'Percent done.' }),
			error: z.string().nullable(),
			cost: Cost,
			workspace_id: z.uuid().nullable(),
			created_at: z.iso.datetime(),
			finished_at: z.iso.datetime().nullable(),
		})
		.meta({ id })

const estimateSchema = (object: string, id: string) =>
	z
		.object({
			object: z.literal(object),
			dry_run: z.literal(true),
			requested: z.number().int(),
			cost: Cost,
			balance: z.number().int().meta({ description: 'Credits held now, before this one.' }),
		})
		.meta({ id })

const DryRun = z.boolean().optional().meta({
	description:
		'Check everything and answer the cost (200) without creating anything or holding credits.',
})

type Scrape = Awaited<ReturnType<typeof findScrape>>

function scrapeItem(object: 'lead_scrape' | 'company_search', scrape: Scrape) {
	return {
		id: scrape.id,
		object,
		name: scrape.name,
		source: scrape.source_type,
		status: scrape.status as 0 | 1 | 2 | 3,
		requested: scrape.requested,
		found: scrape.found,
		progress: scrape.progress,
		error: scrape.error,
		cost: { credits: scrape.creditsReserved, pay_with: scrape.payWith },
		workspace_id: scrape.workspace_id,
		created_at: scrape.created_at.toISOString(),
		finished_at: scrape.finished_at?.toISOString() ?? null,
	}
}

const ROLLBACK = Symbol('dry run')

/** `work` in a transaction that never commits: its answer, and nothing kept. */
async function rolledBack<T>(work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
	let result: T | undefined
	try {
		await db.transaction().execute(async (trx) => {
			result = await work(trx)
			throw ROLLBACK
		})
	} catch (error) {
		if (error !== ROLLBACK) throw error
	}
	return result as T
}

/** Creates (or, dry, only tries) a scrape with the create page's service, and shows it. */
async function created(
	account: AccountContext,
	kind: ListKind,
	dry: boolean | undefined,
	create: (executor: Kysely<DB>) => Promise<{ listId: string }>,
) {
	const object = kind === 'leads' ? 'lead_scrape' : 'company_search'
	const make = async (executor: Kysely<DB>) =>
		findScrape(account, kind, (await create(executor)).listId, executor)
	if (!dry) return scrapeItem(object, await db.transaction().execute(make))
	const scrape = await rolledBack(make)
	return new ApiAnswer(200, {
		object: `${object}_estimate`,
		dry_run: true,
		requested: scrape.requested,
		cost: { credits: scrape.creditsReserved, pay_with: scrape.payWith },
		balance: account.creditBalance,
	})
}

const IdParams = z.object({ id: z.uuid({ error: 'Not an id' }).meta({ description: 'The id.' }) })

const LeadScrape = scrapeSchema('lead_scrape', 'LeadScrape')
const CompanySearch = scrapeSchema('company_search', 'CompanySearch')

const statusAndCancel = (kind: ListKind) => {
	const object = kind === 'leads' ? 'lead_scrape' : 'company_search'
	const path = kind === 'leads' ? '/lead-scrapes' : '/company-searches'
	const name = kind === 'leads' ? 'LeadScrape' : 'CompanySearch'
	const response = kind === 'leads' ? LeadScrape : CompanySearch
	return [
		defineOperation({
			id: `get${name}`,
			method: 'GET',
			path: `${path}/{id}`,
			summary: kind === 'leads' ? 'Get a lead scrape' : 'Get a company search',
			description: 'Its status, progress and what it holds; the list it fills has the same id.',
			tag: 'Scrapes',
			scope: 'scrapes:read',
			params: IdParams,
			response,
			async handle({ account, params }) {
				return scrapeItem(object, await findScrape(account, kind, params.id))
			},
		}),
		defineOperation({
			id: `cancel${name}`,
			method: 'POST',
			path: `${path}/{id}/cancel`,
			summary: kind === 'leads' ? 'Cancel a lead scrape' : 'Cancel a company search',
			description:
				'Stops a pending or running one at once: what it found is kept and charged, the rest of the held credits comes back. A finished one is a 400.',
			tag: 'Scrapes',
			scope: 'scrapes:write',
			screen: 'scrape',
			params: IdParams,
			response,
			async handle({ account, params }) {
				await cancelScrape(account, kind, params.id)
				return scrapeItem(object, await findScrape(account, kind, params.id))
			},
		}),
	]
}

// the create pages' own fields and rules; `intent` is the form's button, not the API's
const LeadScrapeBody = z.object({ ...CreateLeadsFields, dry_run: DryRun })
const CompanySearchBody = CreateCompaniesFields.omit({ intent: true, file: true })
	.extend({ dry_run: DryRun })
	.superRefine(checkCompanySource)

export const scrapeOperations = [
	defineOperation({
		id: 'createLeadScrape',
		method: 'POST',
		path: '/lead-scrapes',
		summary: 'Scrape leads from an Apollo people search',
		description:
			'Creates a lead list filled from the search (run through Apify), as Create leads does: with `payWith: "credits"` the credits for `count` leads are held and the unused ones come back. `dry_run: true` answers 200 with the cost and creates nothing.',
		tag: 'Scrapes',
		scope: 'scrapes:write',
		screen: 'create-leads',
		body: LeadScrapeBody,
		status: 201,
		response: LeadScrape,
		alsoAnswers: [
			{
				status: 200,
				description: 'A dry run: what it would cost.',
				schema: estimateSchema('lead_scrape_estimate', 'LeadScrapeEstimate'),
			},
		],
		async handle({ account, body }) {
			return created(account, 'leads', body.dry_run, (executor) =>
				createLeadScrape(
					account,
					{
						name: body.name,
						url: body.url,
						count: body.count,
						payWith: body.payWith,
						workspaceId: body.workspaceId ?? null,
					},
					executor,
				),
			)
		},
	}),
	...statusAndCancel('leads'),
	defineOperation({
		id: 'createCompanySearch',
		method: 'POST',
		path: '/company-searches',
		summary: 'Search companies: by domains or an Apollo company search',
		description:
			'Creates a company list as Create companies does: `source: "domains"` with `domains` (one a line) looks each up through Apollo; `source: "apollo"` with `url` and `count` runs the search through Apify. `dry_run: true` answers 200 with the cost and creates nothing.',
		tag: 'Scrapes',
		scope: 'scrapes:write',
		screen: 'create-companies',
		body: CompanySearchBody,
		status: 201,
		response: CompanySearch,
		alsoAnswers: [
			{
				status: 200,
				description: 'A dry run: what it would cost.',
				schema: estimateSchema('company_search_estimate', 'CompanySearchEstimate'),
			},
		],
		async handle({ account, body }) {
			return created(account, 'companies', body.dry_run, (executor) =>
				createCompanyScrape(
					account,
					{
						name: body.name,
						workspaceId: body.workspaceId ?? null,
						source: body.source,
						domainsText: body.domains,
						url: body.url,
						count: body.count,
						payWith: body.payWith,
					},
					executor,
				),
			)
		},
	}),
	...statusAndCancel('companies'),
]
