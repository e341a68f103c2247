import { db } from '../../../db/index.server.ts'
import { getConfig } from '../../config.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { enqueue } from '../../jobs/enqueue.server.ts'
import { leadScrapeJob } from '../../jobs/definitions/lead-scrape.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { InsufficientCreditsError, reserveCredits } from '../billing/credits.server.ts'
import { actingAccount, canUseWorkspace } from '../workspaces/access.server.ts'
import { parseApolloUrl } from './apollo-url.ts'
import { leadScrapeReference } from './run-lead-scrape.server.ts'
import type { CreateLeadsInput } from './schemas.ts'

export function leadScrapePrice(count: number) {
	return count * getConfig().CREDITS_PER_LEAD
}

/**
 * A lead list from an Apollo people search: the list (pending), its request,
 * the credits held for it and the lead-scrape job, all in one transaction.
 */
export async function createLeadScrape(context: AccountContext | null, input: CreateLeadsInput) {
	const account = actingAccount(context)
	const config = getConfig()
	const parsed = parseApolloUrl(input.url, 'people')
	if (!parsed.ok) throw new FormError(parsed.error, 'url')
	if (!canUseWorkspace(account, input.workspaceId))
		throw new FormError('Choose one of your workspaces', 'workspaceId')
	if (input.payWith === 'apifyKey' && !account.apiKeyProviders.includes('apify')) {
		throw new FormError(
			'Add your Apify API key on the API keys page first, or pay with credits',
			'payWith',
		)
	}
	if (input.payWith === 'credits' && !config.APIFY_TOKEN) {
		throw new FormError(
			'Paying with credits is not available here yet: use your own Apify key',
			'payWith',
		)
	}
	const price = input.payWith === 'credits' ? leadScrapePrice(input.count) : 0
	try {
		return await db.transaction().execute(async (trx) => {
			const list = await trx
				.insertInto('processing_list')
				.values({
					user_id: account.accountId,
					workspace_id: input.workspaceId,
					name: input.name,
					source_type: 'apollo',
					requested: input.count,
				})
				.returning('id')
				.executeTakeFirstOrThrow()
			const request = await trx
				.insertInto('apollo_requests')
				.values({
					user_id: account.accountId,
					list_id: list.id,
					url: parsed.search.url,
					requested_count: input.count,
					key_kind: input.payWith,
					actor_id: config.APIFY_APOLLO_ACTOR,
					credits_reserved: price,
				})
				.returning('id')
				.executeTakeFirstOrThrow()
			if (price > 0) {
				await reserveCredits(trx, {
					accountId: account.accountId,
					amount: price,
					reference: leadScrapeReference(request.id, 1),
				})
			}
			await enqueue(
				leadScrapeJob,
				{ requestId: request.id },
				{ db: trx, singletonKey: `${request.id}:1` },
			)
			return { listId: list.id, requestId: request.id }
		})
	} catch (error) {
		if (error instanceof InsufficientCreditsError) {
			throw new FormError(
				`${error.message} Ask for fewer leads, buy credits or use your own Apify key.`,
				'count',
			)
		}
		throw error
	}
}
