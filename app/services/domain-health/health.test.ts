import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import { startFakeDns, type Zone } from '../../../tests/fakes/dns/server.ts'
import {
	startWebhookReceiver,
	type WebhookReceiver,
} from '../../../tests/fakes/webhook-receiver/server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { contextOf, insertWorkspace, outcomeOf } from '../../../tests/support/team.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { listDomains } from '../domains/domains.server.ts'
import { deliverWebhook } from '../webhooks/deliver.server.ts'
import { dispatchEvents } from '../webhooks/dispatch.server.ts'
import { createEndpoint } from '../webhooks/endpoints.server.ts'
import { webhookEventSchemas } from '../webhooks/events.ts'
import {
	accountHealth,
	checkHealthNow,
	domainHealth,
	healthOf,
	queueDailyHealthChecks,
	runHealthChecks,
	setDkimSelector,
} from './health.server.ts'
import { createDnsClient } from './dns.server.ts'

let dns: Awaited<ReturnType<typeof startFakeDns>>
let receiver: WebhookReceiver

const healthy = (name: string): Zone => ({
	[name]: {
		A: ['203.0.113.10'],
		MX: [{ priority: 1, exchange: 'smtp.google.com' }],
		TXT: ['v=spf1 include:_spf.google.com ~all'],
	},
	[`_dmarc.${name}`]: { TXT: [`v=DMARC1; p=none; rua=mailto:d@${name}`] },
	[`google._domainkey.${name}`]: { TXT: ['v=DKIM1; k=rsa; p=MIIB'] },
})

beforeAll(async () => {
	dns = await startFakeDns({ '_spf.google.com': { TXT: ['v=spf1 ip4:35.190.247.0/24 ~all'] } })
	process.env.DNS_SERVERS = dns.server
	resetSingleton('config')
	receiver = await startWebhookReceiver()
})
afterAll(async () => {
	await dns.close()
	await receiver.close()
	delete process.env.DNS_SERVERS
	resetSingleton('config')
})

const unique = () => Math.random().toString(36).slice(2, 8)

async function ownerWith(names: string[]) {
	const user = await insertUser(db)
	const workspaceId = await insertWorkspace(db, user.id, 'Main')
	const ids: string[] = []
	for (const name of names) {
		const row = await db
			.insertInto('domains')
			.values({ user_id: user.id, workspace_id: workspaceId, name, source: 'imported' })
			.returning('id')
			.executeTakeFirstOrThrow()
		await db
			.insertInto('inboxes')
			.values({
				user_id: user.id,
				workspace_id: workspaceId,
				domain_id: row.id,
				address: `a@${name}`,
				provider: 'google',
			})
			.execute()
		ids.push(row.id)
	}
	return { user, ids, account: await contextOf(db, user) }
}

async function notificationsOf(accountId: string) {
	return db
		.selectFrom('notifications')
		.select(['kind', 'title', 'body', 'link'])
		.where('account_id', '=', accountId)
		.where('kind', '=', 'domain-health')
		.execute()
}

/** Holds a domain's health row in `trx` (as a run's write would): the holder's backend pid. */
async function holdHealthRow(trx: typeof db, id: string) {
	await sql`select 1 from domain_health where domain_id = ${id} for update`.execute(trx)
	const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)
	return rows[0]!.pid
}

/** Until `count` other sessions wait on a lock (the runs reached their write), at most 10 s. */
async function untilWaiting(holder: number, count: number) {
	for (let waited = 0; ; waited += 20) {
		const { rows } = await sql<{ n: string }>`
			select count(*) as n from pg_stat_activity
			where datname = current_database() and wait_event_type = 'Lock'
				and cardinality(pg_blocking_pids(pid)) > 0 and pid <> ${holder}::int`.execute(db)
		if (Number(rows[0]!.n) >= count) return
		if (waited > 10_000) throw new Error(`${count} runs never reached their write`)
		await new Promise((resolve) => setTimeout(resolve, 20))
	}
}

const lastHistoryReport = async (id: string) =>
	(
		await db
			.selectFrom('domain_health_history')
			.select('report')
			.where('domain_id', '=', id)
			.orderBy('id', 'desc')
			.executeTakeFirstOrThrow()
	).report

describe('checking and storing', () => {
	test('a check stores the grade and report, the history grows, and the worst come first', async () => {
		const good = `good-${unique()}.com`
		const bad = `bad-${unique()}.com`
		Object.assign(dns.zone, healthy(good), { [bad]: { A: ['203.0.113.11'] } })
		const { account, ids } = await ownerWith([good, bad])
		const [goodId, badId] = ids as [string, string]
		await runHealthChecks(ids)
		const list = await accountHealth(account, { limit: 50, offset: 0 })
		expect(list.domains.map((d) => [d.name, d.status, d.grade])).toEqual([
			[bad, 'failing', 'F'],
			[good, 'healthy', 'A'],
		])
		expect(list.counts).toEqual({ failing: 1, healthy: 1 })
		const detail = await domainHealth(account, badId)
		expect(detail.report?.checks.find((c) => c.key === 'spf')?.fix).toEqual({
			action: 'add',
			host: '@',
			type: 'TXT',
			value: 'v=spf1 include:_spf.google.com ~all',
		})
		await checkHealthNow(account, goodId)
		expect((await domainHealth(account, goodId)).history).toHaveLength(2)
		expect((await healthOf(account, [goodId])).get(goodId)?.grade).toBe('A')
	})

	test('a run stores each report once over several writes, and a write that fails fails the run', async () => {
		const names = Array.from({ length: 40 }, (_, i) => `many-${i}-${unique()}.com`)
		for (const name of names) Object.assign(dns.zone, healthy(name))
		const slow = names[39]!
		// its MX never answers: it is stored last, long after the others
		dns.zone[slow] = { ...dns.zone[slow], MX: undefined, TIMEOUT: true }
		const { ids } = await ownerWith(names)
		const client = createDnsClient({ servers: [dns.server], timeoutMs: 5000, tries: 1, retries: 0 })
		const run = runHealthChecks(ids, { dns: client, storeMin: 5 })
		const stored = () =>
			db
				.selectFrom('domain_health_history')
				.select((eb) => eb.fn.countAll<string>().as('n'))
				.where('domain_id', 'in', ids)
				.executeTakeFirstOrThrow()
				.then((r) => Number(r.n))
		// the 39 quick ones are stored while the slow one is still being checked
		await expect.poll(stored, { timeout: 4500, interval: 50 }).toBe(39)
		await db.deleteFrom('domains').where('id', '=', ids[39]!).execute()
		await expect(run).rejects.toThrow(/foreign key/)
		// the others each once, their latest report beside the history
		expect(await stored()).toBe(39)
		const latest = await db
			.selectFrom('domain_health')
			.select('domain_id')
			.where('domain_id', 'in', ids)
			.execute()
		expect(latest).toHaveLength(39)
	})

	test('a re-check that finds the same stores the report once: its history row holds no copy', async () => {
		const name = `same-${unique()}.com`
		Object.assign(dns.zone, healthy(name))
		const { account, ids } = await ownerWith([name])
		const id = ids[0]!
		const history = () =>
			db
				.selectFrom('domain_health_history')
				.select(['status', 'report'])
				.where('domain_id', '=', id)
				.orderBy('id')
				.execute()
		await runHealthChecks([id])
		await runHealthChecks([id])
		const [first, second] = await history()
		expect(first!.report).toMatchObject({ status: 'healthy' })
		expect(second).toEqual({ status: 'healthy', report: null })
		// the page still reads the report, and the history lists both checks
		const detail = await domainHealth(account, id)
		expect(detail.report).toEqual(first!.report)
		expect(detail.history).toHaveLength(2)
		// what changes is stored again, in the latest row and in the history
		dns.zone[`_dmarc.${name}`] = { TXT: [] }
		await runHealthChecks([id])
		const third = (await history())[2]!
		expect(third.report).toMatchObject({ status: 'failing' })
		expect((await domainHealth(account, id)).report).toEqual(third.report)
	})

	test('a re-check overtaken by another run that stored another report stores its own after all', async () => {
		const name = `overtaken-${unique()}.com`
		Object.assign(dns.zone, healthy(name))
		const { account, ids } = await ownerWith([name])
		const id = ids[0]!
		await runHealthChecks([id])
		const found = (await domainHealth(account, id)).report
		let run: Promise<unknown> = Promise.resolve()
		await db.transaction().execute(async (trx) => {
			// the run reads the stored hash, then waits at its write while "another run" stores
			// another report (this transaction) and commits first
			const holder = await holdHealthRow(trx, id)
			run = runHealthChecks([id])
			run.catch(() => {})
			await untilWaiting(holder, 1)
			await trx
				.updateTable('domain_health')
				.set({
					report: JSON.stringify({ checks: [], status: 'failing', score: 0, grade: 'F' }),
					report_hash: 'another',
				})
				.where('domain_id', '=', id)
				.execute()
		})
		await run
		const row = await db
			.selectFrom('domain_health')
			.select(['report', 'report_hash', 'status'])
			.where('domain_id', '=', id)
			.executeTakeFirstOrThrow()
		// what this run found, with its own hash: the next re-check sends no copy again
		expect(row.status).toBe('healthy')
		expect(row.report).toEqual(found)
		expect(row.report_hash).not.toBe('another')
		expect(await lastHistoryReport(id)).toEqual(found)
		await runHealthChecks([id])
		expect(await lastHistoryReport(id)).toBeNull()
	})

	test('sorted by grade: the worst first ascending, the best first descending, never checked last, on both lists', async () => {
		const tag = unique()
		const [good, warn, bad, fresh] = ['a-good', 'b-warn', 'c-bad', 'd-fresh'].map(
			(n) => `${n}-${tag}.com`,
		) as [string, string, string, string]
		Object.assign(dns.zone, healthy(good), healthy(warn), healthy(bad))
		// no DMARC reports address: needs attention; no SPF: failing
		dns.zone[`_dmarc.${warn}`] = { TXT: ['v=DMARC1; p=none'] }
		dns.zone[bad] = { ...dns.zone[bad], TXT: [] }
		const { account, ids } = await ownerWith([good, warn, bad, fresh])
		await runHealthChecks(ids.slice(0, 3))
		const health = async (dir: 'asc' | 'desc') =>
			(
				await accountHealth(account, { limit: 50, offset: 0, sort: { sort: 'grade', dir } })
			).domains.map((d) => d.name)
		const table = async (dir: 'asc' | 'desc') =>
			(await listDomains(account, undefined, { sort: { sort: 'grade', dir } })).map((d) => d.name)
		expect(await health('asc')).toEqual([bad, warn, good, fresh])
		expect(await health('desc')).toEqual([good, warn, bad, fresh])
		expect(await table('asc')).toEqual([bad, warn, good, fresh])
		expect(await table('desc')).toEqual([good, warn, bad, fresh])
	})

	test('a recorded DKIM selector is checked instead of the provider’s', async () => {
		const name = `sel-${unique()}.com`
		const zone = healthy(name)
		delete zone[`google._domainkey.${name}`]
		Object.assign(dns.zone, zone)
		const { account, ids } = await ownerWith([name])
		await checkHealthNow(account, ids[0]!)
		expect((await domainHealth(account, ids[0]!)).report?.checks[2]?.status).toBe('fail')
		dns.zone[`k1._domainkey.${name}`] = { TXT: ['v=DKIM1; p=ABC'] }
		await setDkimSelector(account, ids[0]!, 'k1')
		await checkHealthNow(account, ids[0]!)
		expect((await domainHealth(account, ids[0]!)).report?.checks[2]?.status).toBe('pass')
	})

	test('the daily schedule marks every domain pending and queues its checks', async () => {
		const { account, ids } = await ownerWith([`daily-${unique()}.com`])
		await queueDailyHealthChecks()
		expect((await healthOf(account, ids)).get(ids[0]!)?.pending).toBe(true)
	})
})

describe('healthy to failing', () => {
	test('notifies the owner once, in the app with a mail queued; could-not-check never does', async () => {
		const name = `turn-${unique()}.com`
		Object.assign(dns.zone, healthy(name))
		const { user, account, ids } = await ownerWith([name])
		await checkHealthNow(account, ids[0]!)
		expect(await notificationsOf(user.id)).toEqual([])

		// the DNS server fails: could not check, no alarm
		dns.zone[name] = { SERVFAIL: true }
		await checkHealthNow(account, ids[0]!)
		expect((await domainHealth(account, ids[0]!)).status).toBe('unknown')
		expect(await notificationsOf(user.id)).toEqual([])

		// the SPF record is gone: failing, one notification
		Object.assign(dns.zone, healthy(name))
		dns.zone[name] = { ...dns.zone[name], TXT: [] }
		await checkHealthNow(account, ids[0]!)
		await checkHealthNow(account, ids[0]!)
		expect(await notificationsOf(user.id)).toEqual([
			{
				kind: 'domain-health',
				title: `${name} is failing its health checks`,
				body: 'Failing: Sender list (SPF). The page shows the records to fix.',
				link: `/domains/${ids[0]}/health`,
			},
		])
	})
})

describe('overlapping checks of one domain', () => {
	test('a "check now" during the daily job: one change makes one event and one notification', async () => {
		const name = `overlap-${unique()}.com`
		Object.assign(dns.zone, healthy(name))
		const { user, account, ids } = await ownerWith([name])
		const id = ids[0]!
		await createEndpoint(account, {
			intent: 'create',
			url: `${receiver.url}/overlap`,
			events: ['domain.health_changed'],
			workspaces: [],
		})
		await checkHealthNow(account, id)
		// the SPF record goes: healthy → failing, seen by two runs at once
		dns.zone[name] = { ...dns.zone[name], TXT: [] }
		await db.transaction().execute(async (trx) => {
			// hold the domain's health row so both runs reach their write before either commits
			const holder = await holdHealthRow(trx, id)
			const runs = [runHealthChecks([id]), checkHealthNow(account, id)]
			runs.forEach((run) => run.catch(() => {}))
			await untilWaiting(holder, 2)
			overlapping = runs
		})
		await Promise.all(overlapping)
		const events = await db
			.selectFrom('webhook_events')
			.select('data')
			.where('type', '=', 'domain.health_changed')
			.where(sql<boolean>`data->>'domain_id' = ${id}`)
			.execute()
		expect(events.map((e) => (e.data as { status: string }).status)).toEqual(['failing'])
		expect(await notificationsOf(user.id)).toHaveLength(1)
		expect((await domainHealth(account, id)).history.map((h) => h.status)).toEqual([
			'failing',
			'failing',
			'healthy',
		])
	})
})
let overlapping: Promise<unknown>[] = []

describe('the webhook event', () => {
	test('healthy → failing and back are signed `domain.health_changed` deliveries; could-not-check and a first check send none', async () => {
		const name = `hook-${unique()}.com`
		Object.assign(dns.zone, healthy(name))
		const { account, ids } = await ownerWith([name])
		const { id: endpointId, secret } = await createEndpoint(account, {
			intent: 'create',
			url: `${receiver.url}/health`,
			events: ['domain.health_changed'],
			workspaces: [],
		})
		receiver.secrets.push(secret)
		const delivered = async () => {
			await dispatchEvents()
			const rows = await db
				.selectFrom('webhook_deliveries')
				.select(['id', 'attempts', 'status', 'event_id'])
				.where('endpoint_id', '=', endpointId)
				.orderBy('id')
				.execute()
			for (const d of rows)
				if (d.status === 'pending') await deliverWebhook({ deliveryId: d.id, attempt: d.attempts })
			return receiver.received
				.filter((r) => r.path === '/health' && r.payload?.data.domain_id === ids[0])
				.map((r) => r.payload!)
		}
		// the first check: no change to report
		await checkHealthNow(account, ids[0]!)
		expect(await delivered()).toEqual([])
		// the DNS server fails: could not check, no event
		dns.zone[name] = { SERVFAIL: true }
		await checkHealthNow(account, ids[0]!)
		expect(await delivered()).toEqual([])
		// the SPF record goes: failing
		Object.assign(dns.zone, healthy(name))
		dns.zone[name] = { ...dns.zone[name], TXT: [] }
		await checkHealthNow(account, ids[0]!)
		// fixed again: healthy
		Object.assign(dns.zone, healthy(name))
		await checkHealthNow(account, ids[0]!)
		const bodies = await delivered()
		expect(
			bodies.map((b) => [b.type, b.data.previous_status, b.data.status, b.data.grade]),
		).toEqual([
			['domain.health_changed', 'healthy', 'failing', 'C'],
			['domain.health_changed', 'failing', 'healthy', 'A'],
		])
		expect(bodies[0]!.data).toMatchObject({
			name,
			previous_grade: 'A',
			failing_checks: ['spf'],
			link: expect.stringContaining(`/domains/${ids[0]}/health`),
		})
		for (const body of bodies)
			expect(webhookEventSchemas['domain.health_changed'].parse(body)).toBeTruthy()
		// signed: the receiver's verifier accepted each with the endpoint's secret
		expect(
			receiver.received.filter((r) => r.path === '/health').every((r) => r.verifiedWith.length),
		).toBe(true)
	})
})

describe('another account’s domain', () => {
	test('is 404 for every health read and action', async () => {
		const theirs = await ownerWith([`theirs-${unique()}.com`])
		const mine = await ownerWith([])
		const id = theirs.ids[0]!
		expect(await outcomeOf(() => domainHealth(mine.account, id))).toBe(404)
		expect(await outcomeOf(() => checkHealthNow(mine.account, id))).toBe(404)
		expect(await outcomeOf(() => setDkimSelector(mine.account, id, 'x'))).toBe(404)
		expect((await healthOf(mine.account, [id])).size).toBe(0)
		expect((await accountHealth(mine.account, { limit: 50, offset: 0 })).domains).toEqual([])
	})
})
