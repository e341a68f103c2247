import type { Transaction } from 'kysely'
import type { DB } from '../../../db/schema.ts'
import { enqueue } from '../../jobs/enqueue.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { reserveCredits } from '../billing/credits.server.ts'
import type { ActingAccount } from '../workspaces/access.server.ts'
import { leadScrapeReference } from './run-lead-scrape.server.ts'

const PROVIDER_NAMES = { apify: 'Apify', apollo: 'Apollo' } as const

/**
 * Refuses to pay with a provider key the account has not added, or with credits where the
 * platform has no key of that provider to spend them on.
 */
export function checkPayment(
	account: ActingAccount,
	input: { payWith: string; provider: keyof typeof PROVIDER_NAMES; platformHasKey: boolean },
) {
	const name = PROVIDER_NAMES[input.provider]
	if (input.payWith === 'credits') {
		if (!input.platformHasKey) {
			throw new FormError(
				`Paying with credits is not available here yet: use your own ${name} key`,
				'payWith',
			)
		}
	} else if (!account.apiKeyProviders.includes(input.provider)) {
		throw new FormError(
			`Add your ${name} API key on the API keys page first, or pay with credits`,
			'payWith',
		)
	}
}

/**
 * An Apollo search (people for a lead list, companies for a company list) run through
 * Apify: its request row, the credits held for it and its lead-scrape job, in the caller's
 * transaction.
 */
export async function startApolloSearch(
	trx: Transaction<DB>,
	input: {
		accountId: string
		list: { listId: string } | { companyListId: string }
		url: string
		count: number
		keyKind: 'apifyKey' | 'credits'
		actorId: string
		credits: number
	},
) {
	const request = await trx
		.insertInto('apollo_requests')
		.values({
			user_id: input.accountId,
			...('listId' in input.list
				? { list_id: input.list.listId }
				: { company_list_id: input.list.companyListId }),
			url: input.url,
			requested_count: input.count,
			key_kind: input.keyKind,
			actor_id: input.actorId,
			credits_reserved: input.credits,
		})
		.returning('id')
		.executeTakeFirstOrThrow()
	if (input.credits > 0) {
		await reserveCredits(trx, {
			accountId: input.accountId,
			amount: input.credits,
			reference: leadScrapeReference(request.id, 1),
			subject:
				'listId' in input.list
					? { listId: input.list.listId }
					: { companyListId: input.list.companyListId },
		})
	}
	await enqueue(
		'lead-scrape',
		{ requestId: request.id },
		{ db: trx, singletonKey: `${request.id}:1` },
	)
	return request.id
}
