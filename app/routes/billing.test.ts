import { RouterContextProvider } from 'react-router'
import { describe, expect, test } from 'vitest'
import { requestContext, type AccountContext } from '../context.server.ts'
import { newOwner, newTeamMember } from '../../tests/support/billing.ts'
import { statusOf } from '../utils/http-errors.server.ts'
import { buyCreditPack } from '../services/billing/buy-credits.server.ts'
import { deductCredits, grantCredits } from '../services/billing/credits.server.ts'
import { db } from '../../db/index.server.ts'
import * as purchase from './purchase.tsx'
import * as subscription from './subscription.tsx'
import * as testPayment from './test-payment.tsx'
import * as webhook from './resources/stripe-webhook.ts'

// The billing routes as the server calls them: what a posted form gets back.

function args(account: AccountContext | null, path: string, form?: Record<string, string>) {
	const context = new RouterContextProvider()
	context.set(requestContext, {
		account,
		responseHeaders: new Headers(),
		supabase: null,
	} as never)
	const request = new Request(`http://localhost${path}`, {
		method: form ? 'POST' : 'GET',
		...(form ? { body: new URLSearchParams(form) } : {}),
	})
	return { request, context, params: { sessionId: path.split('/')[2] ?? '' } } as never
}

async function outcome(promise: Promise<unknown>) {
	try {
		const result = await promise
		return { status: statusOf(result) ?? 200, result }
	} catch (error) {
		return { status: statusOf(error), result: error }
	}
}

describe('billing routes', () => {
	test('team members (admin and editor) get 403 from every billing action', async () => {
		const owner = await newOwner()
		const pack = await buyCreditPack(owner.account, 1000)
		for (const role of ['admin', 'editor'] as const) {
			const { account } = await newTeamMember(owner.user.id, role)
			const posts = [
				() =>
					subscription.action(args(account, '/subscription', { intent: 'subscribe', planId: '1' })),
				() => subscription.action(args(account, '/subscription', { intent: 'cancel' })),
				() => subscription.action(args(account, '/subscription', { intent: 'resume' })),
				// bad input from a member is still 403, not a form error
				() =>
					subscription.action(args(account, '/subscription', { intent: 'subscribe', planId: 'x' })),
				() => purchase.action(args(account, '/purchase', { intent: 'buy', credits: '1000' })),
				() => testPayment.action(args(account, `/test-payment/${pack.id}`, { intent: 'complete' })),
				() => testPayment.action(args(account, `/test-payment/${pack.id}`, { intent: 'decline' })),
				() => testPayment.loader(args(account, `/test-payment/${pack.id}`)),
			]
			// one at a time: each call starts only when the previous one is checked
			for (const post of posts) expect((await outcome(post())).status).toBe(403)

			// they see who manages billing, and nothing to press
			const view = await subscription.loader(args(account, '/subscription'))
			expect(view).toMatchObject({ isOwner: false, ownerEmail: owner.user.email })
			const credits = await purchase.loader(args(account, '/purchase'))
			expect(credits).toMatchObject({ isOwner: false, history: null })
		}
	})

	test('bad input gets a message at the field and writes nothing', async () => {
		const { account } = await newOwner()
		for (const [path, form, field, message] of [
			[
				'/subscription',
				{ intent: 'subscribe', planId: '7' },
				'planId',
				'Choose one of the plans shown.',
			],
			[
				'/subscription',
				{ intent: 'subscribe', planId: 'abc' },
				'planId',
				'Choose one of the plans shown.',
			],
			[
				'/purchase',
				{ intent: 'buy', credits: '-1000' },
				'credits',
				'Choose one of the credit packs shown.',
			],
			[
				'/purchase',
				{ intent: 'buy', credits: '999999999999' },
				'credits',
				'Choose one of the credit packs shown.',
			],
			[
				'/purchase',
				{ intent: 'buy', credits: '1234' },
				'credits',
				'Choose one of the credit packs shown.',
			],
		] as const) {
			const action = path === '/purchase' ? purchase.action : subscription.action
			const { status, result } = await outcome(action(args(account, path, form)))
			expect(status, `${path} ${JSON.stringify(form)}`).toBe(400)
			const reply = (result as { data: { result: { error: Record<string, string[]> } } }).data
				.result
			expect(reply.error[field]).toEqual([message])
		}
	})

	test('a good choice redirects to the test-payment page', async () => {
		const { account } = await newOwner()
		const response = (await subscription.action(
			args(account, '/subscription', { intent: 'subscribe', planId: '1' }),
		)) as Response
		expect(response.status).toBe(302)
		expect(response.headers.get('Location')).toMatch(/^\/test-payment\/[0-9a-f-]{36}$/)
	})

	test('the webhook answers 404 without Stripe, and 405 to GET', async () => {
		const post = await webhook.action(args(null, '/stripe/webhook', {}))
		expect(post.status).toBe(404)
		expect(webhook.loader().status).toBe(405)
	})
})

describe('the credit history', () => {
	test('names what credits went to, with a link, and gives the time of day', async () => {
		const owner = await newOwner()
		const accountId = owner.user.id
		const list = await db
			.insertInto('processing_list')
			.values({ user_id: accountId, name: 'Founders', source_type: 'upload', status: 2 })
			.returning('id')
			.executeTakeFirstOrThrow()
		const run = await db
			.insertInto('enrichment_runs')
			.values({
				user_id: accountId,
				list_id: list.id,
				name: 'Opener',
				key_kind: 'credits',
				steps: JSON.stringify([]),
			})
			.returning('id')
			.executeTakeFirstOrThrow()
		await grantCredits(db, { accountId, amount: 50, reason: 'admin', reference: null })
		await deductCredits(db, {
			accountId,
			amount: 5,
			reason: 'adjustment',
			reference: `enrich:${run.id}:1`,
			subject: { enrichmentRunId: run.id, listId: list.id },
		})
		const loaded = (await purchase.loader(args(owner.account, '/purchase'))) as unknown as {
			history: { lines: { delta: number; at: string; subject: unknown }[] }
		}
		const used = loaded.history.lines.find((e) => e.delta === -5)!
		expect(used.subject).toEqual({
			label: 'Enrichment “Opener” on Founders',
			href: `/lists/${list.id}/enrich?run=${run.id}`,
		})
		// the moment itself: the page shows it in the reader's zone (LocalTime)
		expect(used.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
	})
})
