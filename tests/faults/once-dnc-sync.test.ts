import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { loadAccountContext } from '../../app/context.server.ts'
import { findDncSyncRun, startDncSync } from '../../app/services/do-not-contact/eb-sync.server.ts'
import { saveEmailBisonSettings } from '../../app/services/emailbison/settings.server.ts'
import {
	newFormKey,
	oncePerSubmission,
} from '../../app/services/idempotency/form-submissions.server.ts'
import { startFakeEmailBison, type FakeEmailBison } from '../fakes/emailbison/server.ts'
import { insertUser } from '../support/factories.ts'
import { workerProcesses } from '../support/worker-process.ts'

// Issue 36's "Must hold": a worker killed (SIGKILL) mid-sync with EmailBison, and a double submit
// of the sync form, send each do-not-contact entry to each EmailBison workspace exactly once,
// counted at the fake. The kill lands after EmailBison took a value but before the worker could
// write it down; the next worker reads EmailBison's blacklist rather than sending it again.
let eb: FakeEmailBison
const workers = workerProcesses()

beforeAll(async () => {
	eb = await startFakeEmailBison({ workspaces: 2 })
})
beforeEach(() => eb.reset())
afterAll(async () => {
	workers.killAll()
	await eb.close()
})

const N = 240

async function accountWithEntries() {
	const user = await insertUser(db)
	await saveEmailBisonSettings(await loadAccountContext(db, user), {
		url: eb.url,
		apiKey: eb.superAdminKey,
	})
	await db
		.insertInto('do_not_contact')
		.values(
			Array.from({ length: N }, (_, i) => ({
				user_id: user.id,
				value: i % 4 === 0 ? `blocked${i}.com` : `dnc${i}@client.com`,
				reason: 'unsubscribed',
			})),
		)
		.execute()
	return loadAccountContext(db, user)
}

async function finished(me: Awaited<ReturnType<typeof accountWithEntries>>, runId: string) {
	await expect
		.poll(async () => (await findDncSyncRun(me, runId))!.status, {
			timeout: 90_000,
			interval: 250,
		})
		.toBe('done')
	return (await findDncSyncRun(me, runId))!
}

/** every entry reached every EmailBison workspace, and none twice */
function expectEachOnce() {
	const counts = [...eb.blacklistReceived.values()]
	expect(counts).toHaveLength(N * eb.workspaces.size)
	expect(counts.filter((n) => n !== 1)).toEqual([])
	for (const ws of eb.workspaces.values())
		expect(ws.blacklistedEmails.size + ws.blacklistedDomains.size).toBe(N)
}

test('a worker killed mid-sync: the next one sends each entry once', async () => {
	const me = await accountWithEntries()
	const first = workers.start()
	await first.ready
	const killed = new Promise<void>((resolve) => {
		// the 100th value is on EmailBison's blacklist; its answer never reaches the worker
		eb.afterBlacklistPost(100, async () => {
			const exited = new Promise((done) => first.child.once('exit', done))
			first.child.kill('SIGKILL')
			await exited
			resolve()
			return 'drop' as const
		})
	})
	const { id } = await startDncSync(me, {})
	await killed
	const atKill = (await findDncSyncRun(me, id))!
	expect(atKill.status).toBe('running')
	expect(atKill.sent).toBeLessThan(100)
	const unsure = await db
		.selectFrom('dnc_eb_sync')
		.select((e) => e.fn.countAll<string>().as('n'))
		.where('user_id', '=', me.accountId!)
		.where('status', '=', 'sending')
		.executeTakeFirstOrThrow()
	expect(Number(unsure.n)).toBeGreaterThan(0)

	const second = workers.start()
	await second.ready
	const done = await finished(me, id)
	expect(done).toMatchObject({ sent: N * 2, failed: 0 })
	expectEachOnce()
	// the second worker read the blacklist back instead of sending blind
	expect(eb.count('GET /api/blacklisted-')).toBeGreaterThan(0)
	second.child.kill('SIGTERM')
}, 150_000)

test('a double submit of the sync form (and a second tab) is one sync: each entry once', async () => {
	const me = await accountWithEntries()
	const worker = workers.start()
	await worker.ready
	const form = (key: string) => {
		const formData = new FormData()
		formData.set('idempotencyKey', key)
		formData.set('intent', 'sync')
		formData.set('scope', 'all')
		return formData
	}
	const key = newFormKey()
	const submit = (formData: FormData) =>
		oncePerSubmission({ accountId: me.accountId!, form: 'dnc-sync', formData }, (trx) =>
			startDncSync(me, {}, trx),
		)
	// the same form twice at once, and the page open in another tab (another key)
	const [a, b, c] = await Promise.all([
		submit(form(key)),
		submit(form(key)),
		submit(form(newFormKey())),
	])
	expect(b.id).toBe(a.id)
	expect(c.id).toBe(a.id)
	await finished(me, a.id)
	expectEachOnce()
	worker.child.kill('SIGTERM')
}, 150_000)
