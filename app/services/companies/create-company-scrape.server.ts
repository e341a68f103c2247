import type { Kysely, Transaction } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { getConfig } from '../../config.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { enqueue } from '../../jobs/enqueue.server.ts'
import { parseDomainList } from '../../utils/domains.ts'
import { domainsFromCsv } from '../../utils/domains-csv.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { inTransaction } from '../../utils/transaction.server.ts'
import { InsufficientCreditsError, reserveCredits } from '../billing/credits.server.ts'
import { parseApolloUrl } from '../leads/apollo-url.ts'
import { checkPayment, startApolloSearch } from '../leads/start-apollo-search.server.ts'
import { actingAccount, canUseWorkspace } from '../workspaces/access.server.ts'
import { MAX_DOMAINS } from './schemas.ts'
import { companyScrapeReference } from './run-company-scrape.server.ts'

export type CreateCompaniesInput = {
	name: string
	workspaceId: string | null
	source: 'domains' | 'apollo'
	domainsText?: string
	csv?: string
	url?: string
	count?: number
	payWith: 'apolloKey' | 'apifyKey' | 'credits'
}

/**
 * A company list: from pasted or uploaded domains (the company-scrape job
 * enriches each through Apollo), or from an Apollo company search (run through Apify).
 */
export async function createCompanyScrape(
	context: AccountContext | null,
	input: CreateCompaniesInput,
	executor: Kysely<DB> = db,
) {
	const account = actingAccount(context)
	const config = getConfig()
	if (!canUseWorkspace(account, input.workspaceId))
		throw new FormError('Choose one of your workspaces', 'workspaceId')
	const price = config.CREDITS_PER_COMPANY

	if (input.source === 'domains') {
		const text = input.csv !== undefined ? domainsFromCsv(input.csv) : (input.domainsText ?? '')
		const field = input.csv !== undefined ? 'file' : 'domains'
		const { domains, invalid } = parseDomainList(text)
		if (invalid.length > 0) {
			const shown = invalid.slice(0, 5).map((p) => `line ${p.line}: “${p.value}” (${p.reason})`)
			throw new FormError(
				`Fix ${invalid.length === 1 ? 'this domain' : `these ${invalid.length} domains`} first: ${shown.join('; ')}${invalid.length > 5 ? '; …' : ''}`,
				field,
			)
		}
		if (domains.length === 0) throw new FormError('No domains found', field)
		if (domains.length > MAX_DOMAINS)
			throw new FormError(`Use at most ${MAX_DOMAINS.toLocaleString('en')} domains at once`, field)
		if (input.payWith === 'apifyKey')
			throw new FormError('Domains are looked up with an Apollo key or credits', 'payWith')
		checkPayment(account, {
			payWith: input.payWith,
			provider: 'apollo',
			platformHasKey: Boolean(config.APOLLO_API_KEY),
		})
		const reserved = input.payWith === 'credits' ? domains.length * price : 0
		return withCredits(executor, async (trx) => {
			const list = await trx
				.insertInto('company_scraping_list')
				.values({
					user_id: account.accountId,
					workspace_id: input.workspaceId,
					name: input.name,
					source_type: 'domains',
					requested: domains.length,
					input_domains: domains,
					key_kind: input.payWith,
					credits_reserved: reserved,
				})
				.returning('id')
				.executeTakeFirstOrThrow()
			if (reserved > 0) {
				await reserveCredits(trx, {
					accountId: account.accountId,
					amount: reserved,
					reference: companyScrapeReference(list.id, 1),
					subject: { companyListId: list.id },
				})
			}
			await enqueue(
				'company-scrape',
				{ listId: list.id },
				{ db: trx, singletonKey: `${list.id}:1` },
			)
			return { listId: list.id }
		})
	}

	const parsed = parseApolloUrl(input.url ?? '', 'companies')
	if (!parsed.ok) throw new FormError(parsed.error, 'url')
	const count = input.count ?? 0
	if (input.payWith === 'apolloKey')
		throw new FormError(
			'An Apollo search runs through Apify: use your Apify key or credits',
			'payWith',
		)
	checkPayment(account, {
		payWith: input.payWith,
		provider: 'apify',
		platformHasKey: Boolean(config.APIFY_TOKEN),
	})
	const reserved = input.payWith === 'credits' ? count * price : 0
	return withCredits(executor, async (trx) => {
		const list = await trx
			.insertInto('company_scraping_list')
			.values({
				user_id: account.accountId,
				workspace_id: input.workspaceId,
				name: input.name,
				source_type: 'apollo',
				requested: count,
				key_kind: input.payWith,
				credits_reserved: reserved,
			})
			.returning('id')
			.executeTakeFirstOrThrow()
		await startApolloSearch(trx, {
			accountId: account.accountId,
			list: { companyListId: list.id },
			url: parsed.search.url,
			count,
			keyKind: input.payWith === 'credits' ? 'credits' : 'apifyKey',
			actorId: config.APIFY_APOLLO_COMPANY_ACTOR,
			credits: reserved,
		})
		return { listId: list.id }
	})
}

async function withCredits<T>(
	executor: Kysely<DB>,
	work: (trx: Transaction<DB>) => Promise<T>,
): Promise<T> {
	try {
		return await inTransaction(executor, work)
	} catch (error) {
		if (error instanceof InsufficientCreditsError) {
			throw new FormError(
				`${error.message} Use fewer companies, buy credits or use your own key.`,
				'payWith',
			)
		}
		throw error
	}
}
