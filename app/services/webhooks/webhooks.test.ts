import { sql } from 'kysely'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import {
	startWebhookReceiver,
	type WebhookReceiver,
} from '../../../tests/fakes/webhook-receiver/server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { accountWithCredits } from '../../../tests/support/jobs.ts'
import { contextOf, insertMember, insertWorkspace } from '../../../tests/support/team.ts'
import { statusOf } from '../../utils/http-errors.server.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { deductCredits, grantCredits } from '../billing/credits.server.ts'
import { notifyJobEnd } from '../notifications/record.server.ts'
import { settleVerification } from '../verification/run-verification.server.ts'
import { deliverWebhook, RETRY_DELAYS_SECONDS, webhookId } from './deliver.server.ts'
import { dispatchEvents } from './dispatch.server.ts'
import {
	createEndpoint,
	deleteEndpoint,
	getEndpoint,
	listDeliveries,
	listEndpoints,
	redeliver,
	rotateSecret,
	sendTestEvent,
	setCreditsThreshold,
	setPaused,
} from './endpoints.server.ts'
import { WEBHOOK_EVENT_TYPES, webhookEventSchemas, type WebhookEventType } from './events.ts'
import { sendEndpointDisabledMail } from './mail.server.ts'

// Issue 37, webhooks: endpoints, the outbox written with the change, signed deliveries checked
// by a real receiver with the standardwebhooks package's own verifier, retries and disabling.
// The delivery jobs are run here one by one (deliverWebhook is the job's handler), so each
// attempt and the job it queues next can be read in between.
let receiver: WebhookReceiver
const allowPrivate = process.env.ALLOW_PRIVATE_URLS
beforeAll(async () => {
	receiver = await startWebhookReceiver()
})
afterAll(() => receiver.close())
afterEach(() => {
	receiver.answer(200)
	receiver.setDelay(0)
	receiver.redirect(null)
	process.env.ALLOW_PRIVATE_URLS = allowPrivate
	resetSingleton('config')
})

type Account = Awaited<ReturnType<typeof accountWithCredits>>

async function endpointFor(
	me: Account,
	events: (typeof WEBHOOK_EVENT_TYPES)[number][] = [...WEBHOOK_EVENT_TYPES],
) {
	const created = await createEndpoint(me, {
		intent: 'create',
		url: `${receiver.url}/hooks`,
		events,
		workspaces: [],
	})
	receiver.secrets.push(created.secret)
	return created
}

/** The jobs queued for a delivery (pg-boss's rows), oldest first. */
async function deliveryJobs(deliveryId: number) {
	const { rows } = await sql<{ data: { attempt: number }; start_after: Date }>`
		select data, start_after from pgboss.job where name = 'webhook-delivery'
		and (data->>'deliveryId')::bigint = ${deliveryId} order by created_on`.execute(db)
	return rows
}

async function deliveriesOf(endpointId: string) {
	return db
		.selectFrom('webhook_deliveries')
		.selectAll()
		.where('endpoint_id', '=', endpointId)
		.orderBy('id')
		.execute()
}

/** Dispatches, then runs every delivery's first attempt as the job would. */
async function dispatchAndDeliver(endpointId: string) {
	await dispatchEvents()
	for (const d of await deliveriesOf(endpointId))
		if (d.status === 'pending') await deliverWebhook({ deliveryId: d.id, attempt: d.attempts })
	return deliveriesOf(endpointId)
}

const receivedBy = (endpointId: string) =>
	receiver.received.filter((r) => r.payload && JSON.stringify(r.payload.data).includes(endpointId))

describe('endpoints', () => {
	test('an HTTPS endpoint is added with its events; its secret is whsec_, shown once, sealed at rest', async () => {
		const me = await accountWithCredits()
		const { id, secret } = await endpointFor(me, ['job.failed'])
		expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
		const row = await db
			.selectFrom('webhook_endpoints')
			.selectAll()
			.where('id', '=', id)
			.executeTakeFirstOrThrow()
		expect(row.secret_sealed).not.toContain(secret.slice(6))
		const listed = await listEndpoints(me)
		expect(listed.map((e) => [e.id, e.events, e.status])).toEqual([[id, ['job.failed'], 'enabled']])
		expect(JSON.stringify(listed)).not.toContain(secret.slice(6))
	})

	test('plain HTTP and private addresses are refused unless ALLOW_PRIVATE_URLS', async () => {
		process.env.ALLOW_PRIVATE_URLS = 'false'
		resetSingleton('config')
		const me = await accountWithCredits()
		const create = (url: string) =>
			createEndpoint(me, { intent: 'create', url, events: ['job.failed'], workspaces: [] }).then(
				() => 'ok',
				(e: Error) => e.message,
			)
		expect(await create('http://example.com/hooks')).toMatch(/HTTPS/)
		expect(await create('https://127.0.0.1/hooks')).toMatch(/public URL/)
		expect(await create('https://[::ffff:a9fe:a9fe]/hooks')).toMatch(/public URL/)
		expect(await create('https://localhost/hooks')).toMatch(/public URL/)
		expect(await create('https://user:pw@example.com/hooks')).toMatch(/user name/)
		expect(await create('https://example.com/hooks')).toBe('ok')
	})

	test('a host name that resolves to a private address is refused when connecting: nothing is sent', async () => {
		const me = await accountWithCredits()
		// added while private URLs are allowed, delivered once they are not: the guard is on the connection
		const { id } = await createEndpoint(me, {
			intent: 'create',
			url: `http://localhost:${new URL(receiver.url).port}/rebind`,
			events: ['job.failed'],
			workspaces: [],
		})
		await sendTestEvent(me, id)
		process.env.ALLOW_PRIVATE_URLS = 'false'
		resetSingleton('config')
		const before = receiver.received.length
		const [delivery] = await dispatchAndDeliver(id)
		expect(receiver.received.length).toBe(before)
		expect(delivery).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null })
		expect(delivery!.last_error).toMatch(/private or internal address|Could not connect/)
	})

	test('another account’s endpoint ids are 404 for every action; a team editor is refused', async () => {
		const me = await accountWithCredits()
		const other = await accountWithCredits()
		const { id } = await endpointFor(me, ['job.failed'])
		await sendTestEvent(me, id)
		const [delivery] = await dispatchAndDeliver(id)
		for (const run of [
			() => getEndpoint(other, id),
			() => rotateSecret(other, id, 24),
			() => setPaused(other, id, true),
			() => deleteEndpoint(other, id),
			() => sendTestEvent(other, id),
			() => listDeliveries(other, id),
			() => redeliver(other, id, delivery!.id),
		])
			expect(await run().then(() => 200, statusOf)).toBe(404)
		// my endpoint, another endpoint's delivery id
		const mine2 = await endpointFor(me, ['job.failed'])
		expect(await redeliver(me, mine2.id, delivery!.id).then(() => 200, statusOf)).toBe(404)
		expect((await listEndpoints(other)).length).toBe(0)
		const owner = await db
			.selectFrom('auth.users')
			.select(['id', 'email'])
			.where('id', '=', me.accountId!)
			.executeTakeFirstOrThrow()
		const editor = await contextOf(
			db,
			await insertMember(db, { id: owner.id, email: owner.email! }, { role: 'editor' }),
		)
		expect(await listEndpoints(editor).then(() => 200, statusOf)).toBe(403)
	})

	test('a team admin of one workspace sees and adds only endpoints of that workspace', async () => {
		const ownerUser = await insertUser(db)
		const a = await insertWorkspace(db, ownerUser.id, 'A')
		const b = await insertWorkspace(db, ownerUser.id, 'B')
		const owner = await contextOf(db, ownerUser)
		const admin = await contextOf(
			db,
			await insertMember(db, ownerUser, { role: 'admin', workspaceIds: [a] }),
		)
		const all = await createEndpoint(owner, {
			intent: 'create',
			url: `${receiver.url}/x`,
			events: ['job.failed'],
			workspaces: [],
		})
		const onlyB = await createEndpoint(owner, {
			intent: 'create',
			url: `${receiver.url}/x`,
			events: ['job.failed'],
			workspaces: [b],
		})
		const onlyA = await createEndpoint(admin, {
			intent: 'create',
			url: `${receiver.url}/x`,
			events: ['job.failed'],
			workspaces: [a],
		})
		expect((await listEndpoints(admin)).map((e) => e.id)).toEqual([onlyA.id])
		expect(await getEndpoint(admin, all.id).then(() => 200, statusOf)).toBe(404)
		expect(await deleteEndpoint(admin, onlyB.id).then(() => 200, statusOf)).toBe(404)
		await expect(
			createEndpoint(admin, {
				intent: 'create',
				url: `${receiver.url}/x`,
				events: ['job.failed'],
				workspaces: [b],
			}),
		).rejects.toThrow(/workspace from the list/)
		await expect(
			createEndpoint(admin, {
				intent: 'create',
				url: `${receiver.url}/x`,
				events: ['job.failed'],
				workspaces: [],
			}),
		).rejects.toThrow(/Choose the workspaces/)
	})
})

describe('events: the outbox is written with the change', () => {
	test('a credit change that rolls back leaves no event; the one that commits crosses the threshold once', async () => {
		const me = await accountWithCredits(100)
		const { id } = await endpointFor(me, ['credits.below_threshold'])
		await setCreditsThreshold(me, 50)
		await db
			.transaction()
			.execute(async (trx) => {
				await deductCredits(trx, { accountId: me.accountId!, amount: 80, reason: 'adjustment' })
				throw new Error('rolled back')
			})
			.catch(() => {})
		expect(await dispatchAndDeliver(id)).toEqual([])
		await deductCredits(db, { accountId: me.accountId!, amount: 60, reason: 'adjustment' })
		// already below: no second event until it is back above
		await deductCredits(db, { accountId: me.accountId!, amount: 10, reason: 'adjustment' })
		await grantCredits(db, { accountId: me.accountId!, amount: 100, reason: 'admin' })
		await deductCredits(db, { accountId: me.accountId!, amount: 90, reason: 'adjustment' })
		const deliveries = await dispatchAndDeliver(id)
		expect(deliveries.map((d) => d.status)).toEqual(['succeeded', 'succeeded'])
		const got = receiver.received.filter((r) =>
			deliveries.some((d) => webhookId(d.event_id) === r.id),
		)
		expect(got.map((r) => r.payload?.data)).toEqual([
			{ balance: 40, threshold: 50 },
			{ balance: 40, threshold: 50 },
		])
	})

	test('a failed import is list_import.finished and job.failed with the person’s reason, once across a retry', async () => {
		const me = await accountWithCredits()
		const { id } = await endpointFor(me, ['list_import.finished', 'job.failed'])
		const list = await db
			.insertInto('processing_list')
			.values({
				user_id: me.accountId!,
				name: 'Imported',
				source_type: 'upload',
				status: 3,
				error: 'The file has no email column.',
			})
			.returning('id')
			.executeTakeFirstOrThrow()
		await notifyJobEnd(db, { kind: 'import', id: list.id })
		await notifyJobEnd(db, { kind: 'import', id: list.id })
		const deliveries = await dispatchAndDeliver(id)
		expect(deliveries).toHaveLength(2)
		const bodies = receiver.received
			.filter((r) => deliveries.some((d) => webhookId(d.event_id) === r.id))
			.map((r) => r.payload!)
		expect(bodies.map((b) => b.type).sort()).toEqual(['job.failed', 'list_import.finished'])
		expect(bodies.find((b) => b.type === 'job.failed')!.data).toEqual({
			job: 'list_import',
			id: list.id,
			workspace_id: null,
			reason: 'The file has no email column.',
		})
		for (const body of bodies)
			expect(webhookEventSchemas[body.type as WebhookEventType].parse(body)).toBeTruthy()
	})

	test('a verification’s end and a domain’s status change are events; events not chosen are not sent', async () => {
		const me = await accountWithCredits()
		const { id } = await endpointFor(me, ['verification.finished', 'domain.status_changed'])
		const list = await db
			.insertInto('processing_list')
			.values({ user_id: me.accountId!, name: 'L', source_type: 'upload', status: 2 })
			.returning('id')
			.executeTakeFirstOrThrow()
		const run = await db
			.insertInto('verification_runs')
			.values({
				user_id: me.accountId!,
				list_id: list.id,
				provider: 'millionverifier',
				key_kind: 'ownKey',
				status: 1,
				checked: 7,
			})
			.returning('id')
			.executeTakeFirstOrThrow()
		await settleVerification(run.id, { state: 2 })
		const domain = await db
			.insertInto('domains')
			.values({ user_id: me.accountId!, name: `d${Date.now()}.com`, source: 'imported' })
			.returning(['id', 'status'])
			.executeTakeFirstOrThrow()
		await db.updateTable('domains').set({ status: 'expired' }).where('id', '=', domain.id).execute()
		// a test event is not a subscription: only the endpoint it was sent to gets it
		await notifyJobEnd(db, { kind: 'import', id: list.id })
		const deliveries = await dispatchAndDeliver(id)
		const bodies = receiver.received
			.filter((r) => deliveries.some((d) => webhookId(d.event_id) === r.id))
			.map((r) => r.payload!)
		expect(bodies.map((b) => [b.type, b.data.status])).toEqual([
			['verification.finished', 'done'],
			['domain.status_changed', 'expired'],
		])
		expect(bodies[1]!.data.previous_status).toBe(domain.status)
	})
})

describe('delivery', () => {
	test('every delivery is signed per Standard Webhooks; the receiver’s verifier accepts it', async () => {
		const me = await accountWithCredits()
		const { id } = await endpointFor(me, ['job.failed'])
		await sendTestEvent(me, id)
		const [delivery] = await dispatchAndDeliver(id)
		expect(delivery).toMatchObject({ status: 'succeeded', attempts: 1, last_status_code: 200 })
		expect(delivery!.last_response).toBe('answered 200')
		expect(delivery!.last_latency_ms).toBeGreaterThanOrEqual(0)
		const [got] = receivedBy(id)
		expect(got!.verifiedWith).toEqual([receiver.secrets.length - 1])
		expect(got!.id).toBe(webhookId(delivery!.event_id))
		expect(Math.abs(Number(got!.timestamp) - Date.now() / 1000)).toBeLessThan(30)
		expect(got!.payload).toMatchObject({ type: 'webhook.test', data: { endpoint_id: id } })
	})

	test('a failing endpoint is retried on the schedule with the same webhook-id, then succeeds', async () => {
		const me = await accountWithCredits()
		const { id } = await endpointFor(me, ['job.failed'])
		await sendTestEvent(me, id)
		receiver.answer(503)
		await dispatchEvents()
		const [first] = await deliveriesOf(id)
		for (let attempt = 0; attempt < 3; attempt++) {
			const started = Date.now()
			await deliverWebhook({ deliveryId: first!.id, attempt })
			const jobs = await deliveryJobs(first!.id)
			// the next attempt waits its turn in the queue: 5 s, 5 min, 30 min...
			const next = jobs.at(-1)!
			expect(next.data.attempt).toBe(attempt + 1)
			const wait = (next.start_after.getTime() - started) / 1000
			expect(wait).toBeGreaterThan(RETRY_DELAYS_SECONDS[attempt]! - 2)
			expect(wait).toBeLessThan(RETRY_DELAYS_SECONDS[attempt]! + 5)
		}
		// a stale or doubled job of an attempt already made does nothing
		await deliverWebhook({ deliveryId: first!.id, attempt: 1 })
		receiver.answer(200)
		await deliverWebhook({ deliveryId: first!.id, attempt: 3 })
		const [after] = await deliveriesOf(id)
		expect(after).toMatchObject({ status: 'succeeded', attempts: 4, last_status_code: 200 })
		const got = receivedBy(id)
		expect(got).toHaveLength(4)
		expect(new Set(got.map((r) => r.id))).toEqual(new Set([webhookId(first!.event_id)]))
		expect(got.every((r) => r.verifiedWith.length === 1)).toBe(true)
		expect(
			(
				await db
					.selectFrom('webhook_endpoints')
					.select('failing_since')
					.where('id', '=', id)
					.executeTakeFirstOrThrow()
			).failing_since,
		).toBeNull()
	})

	test('the eighth failure ends the delivery as failed; redeliver sends it again with the same id', async () => {
		const me = await accountWithCredits()
		const { id } = await endpointFor(me, ['job.failed'])
		await sendTestEvent(me, id)
		receiver.answer(500)
		await dispatchEvents()
		const [d] = await deliveriesOf(id)
		for (let attempt = 0; attempt < 8; attempt++)
			await deliverWebhook({ deliveryId: d!.id, attempt })
		const [failed] = await deliveriesOf(id)
		expect(failed).toMatchObject({ status: 'failed', attempts: 8, last_status_code: 500 })
		expect(failed!.last_error).toBe('The endpoint answered 500.')
		// the first attempt's job and the seven retries'
		expect((await deliveryJobs(d!.id)).length).toBe(8)
		receiver.answer(200)
		await redeliver(me, id, d!.id)
		const jobs = await deliveryJobs(d!.id)
		expect(jobs.at(-1)!.data.attempt).toBe(8)
		await deliverWebhook({ deliveryId: d!.id, attempt: 8 })
		const [done] = await listDeliveries(me, id)
		expect(done).toMatchObject({
			status: 'succeeded',
			attempts: 9,
			lastStatusCode: 200,
			type: 'webhook.test',
		})
		expect(new Set(receivedBy(id).map((r) => r.id)).size).toBe(1)
	})

	test('no answer within 10 s and a redirect are failures; the redirect is not followed', async () => {
		const me = await accountWithCredits()
		const { id } = await endpointFor(me, ['job.failed'])
		receiver.redirect(`${receiver.url}/elsewhere`)
		await sendTestEvent(me, id)
		const [redirected] = await dispatchAndDeliver(id)
		expect(redirected).toMatchObject({ status: 'pending', attempts: 1 })
		expect(redirected!.last_error).toMatch(/redirect/)
		expect(receiver.received.some((r) => r.path === '/elsewhere')).toBe(false)
		receiver.redirect(null)
		receiver.setDelay(11_000)
		const started = Date.now()
		await deliverWebhook({ deliveryId: redirected!.id, attempt: 1 })
		expect(Date.now() - started).toBeLessThan(10_900)
		const [slow] = await deliveriesOf(id)
		expect(slow).toMatchObject({
			status: 'pending',
			attempts: 2,
			last_error: 'No answer within 10 seconds.',
		})
	}, 30_000)

	test('a rotation signs with both secrets during the overlap, then with the new one only', async () => {
		const me = await accountWithCredits()
		const { id, secret: old } = await endpointFor(me, ['job.failed'])
		const { secret: fresh } = await rotateSecret(me, id, 24)
		receiver.secrets.push(fresh)
		expect((await getEndpoint(me, id)).previousSecretUntil).not.toBeNull()
		await sendTestEvent(me, id)
		await dispatchAndDeliver(id)
		const both = receivedBy(id)[0]!
		expect(both.signature.split(' ')).toHaveLength(2)
		expect(both.verifiedWith.map((i) => receiver.secrets[i])).toEqual([old, fresh])
		// the overlap over: the old one no longer signs
		await db
			.updateTable('webhook_endpoints')
			.set({ previous_secret_until: new Date(Date.now() - 1000) })
			.where('id', '=', id)
			.execute()
		await sendTestEvent(me, id)
		await dispatchAndDeliver(id)
		const last = receivedBy(id)[1]!
		expect(last.verifiedWith.map((i) => receiver.secrets[i])).toEqual([fresh])
		// no overlap: the old secret stops at once
		const { secret: third } = await rotateSecret(me, id, 0)
		receiver.secrets.push(third)
		await sendTestEvent(me, id)
		await dispatchAndDeliver(id)
		expect(receivedBy(id)[2]!.verifiedWith.map((i) => receiver.secrets[i])).toEqual([third])
	})

	test('paused: nothing is sent and a test is refused; resumed: the waiting retry goes at once', async () => {
		const me = await accountWithCredits()
		const { id } = await endpointFor(me, ['job.failed'])
		await sendTestEvent(me, id)
		receiver.answer(500)
		const [d] = await dispatchAndDeliver(id)
		await setPaused(me, id, true)
		await expect(sendTestEvent(me, id)).rejects.toThrow(/Resume the endpoint/)
		receiver.answer(200)
		// the queued retry finds the endpoint paused and leaves the delivery waiting
		await deliverWebhook({ deliveryId: d!.id, attempt: 1 })
		expect((await deliveriesOf(id))[0]).toMatchObject({ status: 'pending', attempts: 1 })
		await setPaused(me, id, false)
		const jobs = await deliveryJobs(d!.id)
		expect(jobs.at(-1)!.data.attempt).toBe(1)
		expect(jobs.at(-1)!.start_after.getTime()).toBeLessThan(Date.now() + 1000)
		await deliverWebhook({ deliveryId: d!.id, attempt: 1 })
		expect((await deliveriesOf(id))[0]).toMatchObject({ status: 'succeeded', attempts: 2 })
		await deleteEndpoint(me, id)
		expect(await deliveriesOf(id)).toEqual([])
	})

	test('an endpoint failing for 5 days is disabled and its owner mailed once', async () => {
		const me = await accountWithCredits()
		const { id } = await endpointFor(me, ['job.failed'])
		await sendTestEvent(me, id)
		receiver.answer(500)
		const [d] = await dispatchAndDeliver(id)
		expect((await getEndpoint(me, id)).status).toBe('enabled')
		await db
			.updateTable('webhook_endpoints')
			.set({ failing_since: new Date(Date.now() - 5 * 24 * 3600 * 1000 - 1000) })
			.where('id', '=', id)
			.execute()
		await deliverWebhook({ deliveryId: d!.id, attempt: 1 })
		expect(await getEndpoint(me, id)).toMatchObject({
			status: 'disabled',
			disabledReason: 'Every delivery failed for 5 days.',
		})
		const { rows } = await sql<{ data: { endpointId: string } }>`
			select data from pgboss.job where name = 'webhook-disabled-mail' and data->>'endpointId' = ${id}`.execute(
			db,
		)
		expect(rows).toHaveLength(1)
		await sendEndpointDisabledMail(id)
		await sendEndpointDisabledMail(id)
		const mails = await db
			.selectFrom('mailbox')
			.select(['subject', 'text_body'])
			.where('to_address', '=', me.user.email)
			.execute()
		expect(mails.map((m) => m.subject)).toEqual(['A webhook endpoint was disabled'])
		// a disabled endpoint gets no new deliveries until it is enabled again
		await sendTestEvent(me, id).catch(() => {})
		await deductCredits(db, {
			accountId: me.accountId!,
			amount: 0 + 1,
			reason: 'adjustment',
		}).catch(() => {})
		expect(await dispatchAndDeliver(id)).toHaveLength(1)
	})
})
