import { sql } from 'kysely'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { stopBoss } from '../../app/jobs/boss.server.ts'
import { grantCredits } from '../../app/services/billing/credits.server.ts'
import { webhookId } from '../../app/services/webhooks/deliver.server.ts'
import { createEndpoint } from '../../app/services/webhooks/endpoints.server.ts'
import { recordEvent } from '../../app/services/webhooks/record.server.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver/server.ts'
import { accountWithCredits } from '../support/jobs.ts'
import { ownPostgres } from '../support/own-postgres.ts'
import { workerProcesses } from '../support/worker-process.ts'

// Issue 37, webhooks' fault test: a burst of changes, each committing its event in its own
// transaction (a third of them rolled back), while `npm run worker` is killed with SIGKILL
// mid-delivery and PostgreSQL crashes and starts again. Every committed event reaches the
// receiver at least once, each under one webhook-id, every signature verifies with the
// standardwebhooks verifier, and no rolled-back change is ever sent.
const CHANGES = 240
let postgres: Awaited<ReturnType<typeof ownPostgres>>
let receiver: WebhookReceiver
const workers = workerProcesses({ WORKERS: '2', JOB_HEARTBEAT_SECONDS: '10' })

beforeAll(async () => {
	// crash safe: with asynchronous commits the crash itself drops events already committed, and
	// a delivery fast enough to follow its commit is then one the table no longer holds
	postgres = await ownPostgres({ crashSafe: true })
	receiver = await startWebhookReceiver()
	// slow enough that deliveries are in flight when the worker dies
	receiver.setDelay(150)
}, 240_000)

afterAll(async () => {
	workers.killAll()
	await stopBoss()
	await db.destroy()
	await receiver?.close()
	await postgres?.stop()
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

test('worker killed mid-delivery and the database restarted mid-burst: every event once or more, none rolled back', async () => {
	// the worker migrates the empty database at start
	const first = workers.start()
	await first.ready
	const me = await accountWithCredits(10)
	const { secret } = await createEndpoint(me, {
		intent: 'create',
		url: `${receiver.url}/hooks`,
		events: ['job.failed'],
		workspaces: [],
	})
	receiver.secrets.push(secret)
	const { id: endpointId } = await db
		.selectFrom('webhook_endpoints')
		.select('id')
		.executeTakeFirstOrThrow()

	let killed = false
	let crashed = false
	let committedOrUnknown = 0
	for (let i = 0; i < CHANGES; i++) {
		const rollBack = i % 3 === 2
		try {
			await db.transaction().execute(async (trx) => {
				// a change and its event, together
				await grantCredits(trx, {
					accountId: me.accountId!,
					amount: 1,
					reason: 'admin',
					reference: `burst-${i}`,
				})
				await recordEvent(trx, {
					accountId: me.accountId!,
					workspaceId: null,
					type: 'webhook.test',
					endpointId,
					data: {
						endpoint_id: endpointId,
						message: rollBack ? `rolled-back-${i}` : `committed-${i}`,
					},
				})
				if (rollBack) throw new Error('rolled back')
			})
			committedOrUnknown++
		} catch {
			// rolled back on purpose, or the database went away: the table says what committed
		}
		if (!killed && receiver.received.length >= 20) {
			killed = true
			first.child.kill('SIGKILL')
			await new Promise((resolve) => first.child.once('exit', resolve))
			await workers.start().ready
		}
		if (killed && !crashed && i >= CHANGES / 2) {
			crashed = true
			await postgres.crash()
			await sleep(2000)
			await postgres.restart()
		}
		await sleep(10)
	}
	expect(killed && crashed).toBe(true)
	expect(committedOrUnknown).toBeGreaterThan(CHANGES / 2)

	const committed = async () =>
		(await db.selectFrom('webhook_events').select(['id', 'data']).execute()).map((e) => ({
			id: webhookId(e.id),
			message: (e.data as { message: string }).message,
		}))
	await expect
		.poll(
			async () => {
				const events = await committed()
				const got = new Set(receiver.received.map((r) => r.id))
				// and every delivery recorded as such (a POST answered just before a kill or the
				// crash is recorded by its job's retry, after sending it again)
				const { rows } = await sql<{ n: number }>`
					select count(*)::int as n from webhook_deliveries where status <> 'succeeded'`.execute(db)
				return events.length > 0 && events.every((e) => got.has(e.id)) && rows[0]!.n === 0
			},
			{ timeout: 180_000, interval: 500 },
		)
		.toBe(true)

	const events = await committed()
	expect(events.every((e) => e.message.startsWith('committed-'))).toBe(true)
	// one webhook-id per event, and nothing the table does not hold
	const ids = new Set(events.map((e) => e.id))
	expect(ids.size).toBe(events.length)
	expect(receiver.received.every((r) => ids.has(r.id))).toBe(true)
	// every delivery's signature verified, and its body is the event of its webhook-id
	expect(
		receiver.received.every((r) => r.verifiedWith.length === 1 && r.payload?.id === r.id),
	).toBe(true)
	const messages = receiver.received.map((r) => String(r.payload!.data.message))
	expect(messages.some((m) => m.startsWith('rolled-back-'))).toBe(false)
	const deliveries = await db.selectFrom('webhook_deliveries').select('event_id').execute()
	expect(deliveries.length).toBe(events.length)
	console.log(
		`webhooks fault: ${events.length} events committed, ${receiver.received.length} deliveries received (${receiver.received.length - events.length} repeats)`,
	)
}, 300_000)
