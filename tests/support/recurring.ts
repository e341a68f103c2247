import { sql } from 'kysely'
import { RouterContextProvider } from 'react-router'
import { expect } from 'vitest'
import { db } from '../../db/index.server.ts'
import {
	loadAccountContext,
	requestContext,
	type AccountContext,
} from '../../app/context.server.ts'
import { enqueue } from '../../app/jobs/enqueue.server.ts'
import { action as webhookAction } from '../../app/routes/resources/stripe-webhook.ts'
import { resetSingleton } from '../../app/utils/singleton.server.ts'
import { getToast } from '../../app/utils/toast.server.ts'
import type { FakeStripe } from '../fakes/stripe/server.ts'
import { insertUser } from './factories.ts'
import { insertWorkspace } from './team.ts'

// Helpers for the renewal tests: Stripe configured against the fake, signed webhook events
// posted to the route, and the subscription-renewal job run through pg-boss.

export function useStripe(fake: FakeStripe) {
	process.env.STRIPE_SECRET_KEY = fake.secretKey
	process.env.STRIPE_WEBHOOK_SECRET = fake.webhookSecret
	process.env.STRIPE_API_BASE = fake.url
	resetSingleton('config')
	resetSingleton('stripe')
}

export function stopUsingStripe() {
	delete process.env.STRIPE_SECRET_KEY
	delete process.env.STRIPE_WEBHOOK_SECRET
	delete process.env.STRIPE_API_BASE
	resetSingleton('config')
	resetSingleton('stripe')
}

/** Posts an event to /stripe/webhook as Stripe would (raw JSON body, Stripe-Signature). */
export async function deliver(fake: FakeStripe, event: object) {
	const payload = JSON.stringify(event, null, 2)
	const request = new Request('http://localhost/stripe/webhook', {
		method: 'POST',
		headers: { 'Content-Type': 'application/json', 'Stripe-Signature': fake.sign(payload) },
		body: payload,
	})
	const response = (await webhookAction({
		request,
		params: {},
		context: new RouterContextProvider(),
	} as never)) as Response
	return { status: response.status, text: await response.text() }
}

/** Queues the subscription-renewal job and waits until a worker has run it. */
export async function runRenewalJob() {
	const id = await enqueue('subscription-renewal', {})
	await expect
		.poll(
			async () => {
				const { rows } = await sql<{
					state: string
				}>`select state from pgboss.job where id = ${id}`.execute(db)
				return rows[0]?.state
			},
			{ timeout: 20_000, interval: 200 },
		)
		.toBe('completed')
}

/** An owner with a workspace and domains (inserted directly: no dns-check jobs). */
export async function ownerWithDomains(names: string[]) {
	const user = await insertUser(db)
	const workspaceId = await insertWorkspace(db, user.id, 'Main')
	const domains = []
	for (const name of names) {
		const row = await db
			.insertInto('domains')
			.values({ user_id: user.id, workspace_id: workspaceId, name, source: 'imported' })
			.returning(['id', 'name'])
			.executeTakeFirstOrThrow()
		domains.push(row)
	}
	return { user, workspaceId, domains, account: await loadAccountContext(db, user) }
}

export function uniqueName(prefix: string) {
	return `${prefix}-${Math.random().toString(36).slice(2, 10)}.com`
}

export async function auditOf(targetId: string, action: string) {
	return db
		.selectFrom('audit_log')
		.select(['action', 'before', 'after'])
		.where('target_id', '=', targetId)
		.where('action', '=', action)
		.orderBy('created_at')
		.execute()
}

/**
 * Posts a form to a page's action as the signed-in account, as the server would: the redirect
 * it answers and the toast the next page shows.
 */
export async function postForm(
	action: (args: never) => Promise<unknown>,
	account: AccountContext,
	path: string,
	form: Record<string, string>,
) {
	const context = new RouterContextProvider()
	context.set(requestContext, { account, responseHeaders: new Headers(), supabase: null } as never)
	const request = new Request(`http://localhost${path}`, {
		method: 'POST',
		body: new URLSearchParams(form),
	})
	const response = (await action({ request, context, params: {} } as never)) as Response
	const cookie = response.headers.get('Set-Cookie')?.split(';')[0] ?? ''
	const { toast } = await getToast(new Request('http://localhost/', { headers: { cookie } }))
	return { status: response.status, location: response.headers.get('Location'), toast }
}
