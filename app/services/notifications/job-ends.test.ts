import { RouterContextProvider } from 'react-router'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { startFakeApify, type FakeApify } from '../../../tests/fakes/apify/server.ts'
import { startFakeOpenAI, type FakeOpenAI } from '../../../tests/fakes/openai/server.ts'
import { startFakeStripe, type FakeStripe } from '../../../tests/fakes/stripe/server.ts'
import {
	insertLeadList,
	settledRun,
	useEnrichmentSettings,
} from '../../../tests/support/enrichment.ts'
import { newOwner } from '../../../tests/support/billing.ts'
import { accountWithCredits, settledLeadList } from '../../../tests/support/jobs.ts'
import { startWorkers, type Workers } from '../../jobs/worker.server.ts'
import { action as webhookAction } from '../../routes/resources/stripe-webhook.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { choosePlan } from '../billing/choose-plan.server.ts'
import { createLeadScrape } from '../leads/create-lead-scrape.server.ts'
import { runLeadScrape } from '../leads/run-lead-scrape.server.ts'
import { createEnrichment } from '../enrichments/enrichments.server.ts'
import { startRun } from '../enrichments/start-enrichment.server.ts'

// The job ends recorded where each job ends (decision 0082), through the real worker and the
// local fakes: a lead search through Apify, a renewal payment failed through Stripe's webhook.
let apify: FakeApify
let stripe: FakeStripe
let openai: FakeOpenAI
let workers: Workers
beforeAll(async () => {
	apify = await startFakeApify()
	stripe = await startFakeStripe()
	openai = await startFakeOpenAI()
	useEnrichmentSettings(openai)
	process.env.APIFY_BASE_URL = apify.url
	process.env.APIFY_TOKEN = apify.token
	process.env.STRIPE_SECRET_KEY = stripe.secretKey
	process.env.STRIPE_WEBHOOK_SECRET = stripe.webhookSecret
	process.env.STRIPE_API_BASE = stripe.url
	resetSingleton('config')
	resetSingleton('stripe')
	workers = await startWorkers({ concurrency: 2, drainSeconds: 2 })
})
afterAll(async () => {
	await workers.stop()
	await apify.close()
	await stripe.close()
	await openai.close()
})

async function notificationsOf(subjectId: string) {
	return db.selectFrom('notifications').selectAll().where('subject_id', '=', subjectId).execute()
}

async function mailsTo(email: string) {
	return db.selectFrom('mailbox').selectAll().where('to_address', '=', email).execute()
}

async function deliver(event: object) {
	const payload = JSON.stringify(event)
	const request = new Request('http://localhost/stripe/webhook', {
		method: 'POST',
		headers: { 'Content-Type': 'application/json', 'Stripe-Signature': stripe.sign(payload) },
		body: payload,
	})
	const response = (await webhookAction({
		request,
		params: {},
		context: new RouterContextProvider(),
	} as never)) as Response
	return response.status
}

describe('job ends', () => {
	test('a lead search that ends is notified and mailed once, its retry adding nothing', async () => {
		apify.scenario('plain', { pollsBeforeFinish: 1 })
		const me = await accountWithCredits(500)
		const { listId } = await createLeadScrape(me, {
			name: 'Notified CEOs',
			url: 'https://app.apollo.io/#/people?personTitles[]=ceo&qKeywords=notified',
			count: 20,
			payWith: 'credits',
			workspaceId: null,
		})
		expect(await settledLeadList(listId)).toMatchObject({ status: 2, found: 20 })
		const request = await db
			.selectFrom('apollo_requests')
			.select('id')
			.where('list_id', '=', listId)
			.executeTakeFirstOrThrow()
		// the job run again, as after a worker died at its end
		await runLeadScrape(request.id, {
			jobId: 'retry',
			retryCount: 1,
			signal: new AbortController().signal,
		})
		const notes = await notificationsOf(listId)
		expect(notes).toHaveLength(1)
		expect(notes[0]).toMatchObject({
			kind: 'scrape',
			failed: false,
			title: 'Lead search “Notified CEOs” finished: 20 leads found',
			link: `/lists/${listId}`,
		})
		// the worker's notification-mail job sends it
		await expect
			.poll(async () => (await mailsTo(me.user.email)).map((m) => m.subject), { timeout: 20_000 })
			.toEqual(['Lead search “Notified CEOs” finished: 20 leads found'])
	})

	test('an enrichment run that ends is notified once, linking to its list’s runs', async () => {
		const me = await accountWithCredits(100)
		const listId = await insertLeadList(me.accountId!, 3)
		const e = await createEnrichment(me, {
			name: 'Summary',
			prompt: 'Describe {{company_name}} for {{first_name}}',
			outputColumn: 'summary',
			outputFormat: 'text',
			model: 'gpt-4o-mini',
			temperature: 0,
		})
		const run = await startRun(me, { listId, target: `enrichment:${e.id}`, payWith: 'credits' })
		expect((await settledRun(run.runId)).status).toBe(2)
		const notes = await notificationsOf(run.runId)
		expect(notes).toHaveLength(1)
		expect(notes[0]).toMatchObject({
			kind: 'enrichment',
			failed: false,
			link: `/lists/${listId}/enrich`,
		})
		expect(notes[0]!.title).toMatch(/finished: 3 rows enriched$/)
	})

	test('a renewal payment that fails, told by Stripe twice, is one notification to the owner', async () => {
		const { user, account } = await newOwner()
		const choice = await choosePlan(account, 1)
		if (choice.kind !== 'checkout') throw new Error('expected a checkout')
		const paid = stripe.paySession(choice.url.split('/').pop()!)
		expect(await deliver(stripe.event('checkout.session.completed', paid.session))).toBe(200)
		const renewed = stripe.renew(paid.subscription!.id)
		const failed = stripe.invoiceFor(renewed.subscription, 'subscription_cycle', 'open')
		// Stripe's second attempt at the same invoice is another event
		expect(await deliver(stripe.event('invoice.payment_failed', failed))).toBe(200)
		expect(await deliver(stripe.event('invoice.payment_failed', failed))).toBe(200)
		const notes = await notificationsOf(failed.id)
		expect(notes).toHaveLength(1)
		expect(notes[0]).toMatchObject({
			kind: 'renewal',
			account_id: user.id,
			link: '/subscription',
			title: 'A renewal payment failed',
		})
	})
})
