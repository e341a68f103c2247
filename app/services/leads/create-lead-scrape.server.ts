import type { Kysely } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { getConfig } from '../../config.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { inTransaction } from '../../utils/transaction.server.ts'
import { InsufficientCreditsError } from '../billing/credits.server.ts'
import { actingAccount, canUseWorkspace } from '../workspaces/access.server.ts'
import { parseApolloUrl } from './apollo-url.ts'
import type { CreateLeadsInput } from './schemas.ts'
import { checkPayment, startApolloSearch } from './start-apollo-search.server.ts'

export function leadScrapePrice(count: number) {
	return count * getConfig().CREDITS_PER_LEAD
}

/**
 * A lead list from an Apollo people search: the list (pending), its request,
 * the credits held for it and the lead-scrape job, all in one transaction.
 */
export async function createLeadScrape(
	context: AccountContext | null,
	input: CreateLeadsInput,
	executor: Kysely<DB> = db,
) {
	const account = actingAccount(context)
	const config = getConfig()
	const parsed = parseApolloUrl(input.url, 'people')
	if (!parsed.ok) throw new FormError(parsed.error, 'url')
	if (!canUseWorkspace(account, input.workspaceId))
		throw new FormError('Choose one of your workspaces', 'workspaceId')
	checkPayment(account, {
		payWith: input.payWith,
		provider: 'apify',
		platformHasKey: Boolean(config.APIFY_TOKEN),
	})
	const price = input.payWith === 'credits' ? leadScrapePrice(input.count) : 0
	try {
		return await inTransaction(executor, async (trx) => {
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
			const requestId = await startApolloSearch(trx, {
				accountId: account.accountId,
				list: { listId: list.id },
				url: parsed.search.url,
				count: input.count,
				keyKind: input.payWith,
				actorId: config.APIFY_APOLLO_ACTOR,
				credits: price,
			})
			return { listId: list.id, requestId }
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
