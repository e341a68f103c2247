import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { startFakeEmailBison, type FakeEmailBison } from '../../../tests/fakes/emailbison/server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { insertMember, insertWorkspace } from '../../../tests/support/team.ts'
import { loadAccountContext, type AccountContext } from '../../context.server.ts'
import { statusOf } from '../../utils/http-errors.server.ts'
import { saveEmailBisonSettings } from '../emailbison/settings.server.ts'
import { addEntry, listEntries } from './entries.server.ts'
import { entrySyncStates, findDncSyncRun, runDncSync, startDncSync } from './eb-sync.server.ts'

let eb: FakeEmailBison
beforeAll(async () => {
	eb = await startFakeEmailBison({ workspaces: 2 })
})
afterAll(() => eb.close())
beforeEach(() => eb.reset())

const job = () => ({ jobId: 'test', retryCount: 0, signal: new AbortController().signal })
const fast = { retryDelayMs: 1 }

async function fails(promise: Promise<unknown>) {
	try {
		await promise
	} catch (error) {
		return error
	}
	throw new Error('expected a failure')
}

/** An owner with EmailBison connected, two workspaces; workspace A's lists went to EB workspace 2. */
async function owner() {
	const user = await insertUser(db)
	const ws = await insertWorkspace(db, user.id, 'Client A')
	const other = await insertWorkspace(db, user.id, 'Client B')
	let me = await loadAccountContext(db, user)
	await saveEmailBisonSettings(me, { url: eb.url, apiKey: eb.superAdminKey })
	me = await loadAccountContext(db, user)
	const list = await db
		.insertInto('processing_list')
		.values({
			user_id: user.id,
			name: 'A list',
			source_type: 'upload',
			status: 2,
			workspace_id: ws,
		})
		.returning('id')
		.executeTakeFirstOrThrow()
	const [eb1, eb2] = [...eb.workspaces.values()]
	await db
		.insertInto('emailbison_upload')
		.values({
			list_id: list.id,
			user_id: user.id,
			workspace_id: ws,
			eb_workspace_id: String(eb2!.id),
			status: 2,
		})
		.execute()
	return { user, ws, other, me, eb1: eb1!, eb2: eb2! }
}

/** Starts a sync and runs its job here (as the worker would), returning the run. */
async function sync(me: AccountContext, input: Parameters<typeof startDncSync>[1] = {}) {
	const { id } = await startDncSync(me, input)
	await runDncSync(id, job(), fast)
	return (await findDncSyncRun(me, id))!
}

const received = () => [...eb.blacklistReceived.entries()].sort()

describe('push to EmailBison', () => {
	test('each entry goes once to each EmailBison workspace it belongs to, and shows synced', async () => {
		const { me, ws, other, eb1, eb2 } = await owner()
		await addEntry(me, { value: 'jane@client.com', reason: 'unsubscribed', scope: 'account' })
		await addEntry(me, { value: 'competitor.io', reason: 'competitor', scope: 'account' })
		await addEntry(me, { value: 'a-only@x.com', reason: 'customer', scope: ws })
		await addEntry(me, { value: 'b-only@x.com', reason: 'customer', scope: other })
		const run = await sync(me)
		expect(run).toMatchObject({ status: 'done', sent: 5, failed: 0, problems: [] })
		expect([...eb1.blacklistedEmails.keys()]).toEqual(['jane@client.com'])
		expect([...eb1.blacklistedDomains.keys()]).toEqual(['competitor.io'])
		// workspace A's entries go where its lists were uploaded; workspace B has no EmailBison yet
		expect([...eb2.blacklistedEmails.keys()].sort()).toEqual(['a-only@x.com', 'jane@client.com'])
		const { entries } = await listEntries(me, { limit: 100, offset: 0 })
		const states = await entrySyncStates(me.accountId!, entries)
		const stateOf = (v: string) => states.get(entries.find((e) => e.value === v)!.id)
		expect(stateOf('jane@client.com')).toEqual({ state: 'synced' })
		expect(stateOf('a-only@x.com')).toEqual({ state: 'synced' })
		expect(stateOf('b-only@x.com')).toMatchObject({ state: 'not-synced' })

		// a second sync sends only what is new
		await addEntry(me, { value: 'late@client.com', reason: 'manual', scope: 'account' })
		const second = await sync(me)
		expect(second).toMatchObject({ status: 'done', sent: 2 })
		expect(received().every(([, n]) => n === 1)).toBe(true)
		expect(received()).toHaveLength(7)
	})

	test('an answer lost mid-batch: the next attempt reads the blacklist and sends the rest once', async () => {
		const { me } = await owner()
		for (let i = 0; i < 30; i++)
			await addEntry(me, { value: `lost${i}@x.com`, reason: 'manual', scope: 'account' })
		const { id } = await startDncSync(me, {})
		// the 7th POST takes effect, then its connection breaks: the job fails this attempt
		eb.afterBlacklistPost(7, () => 'drop')
		await expect(runDncSync(id, job(), fast)).rejects.toThrow()
		expect((await findDncSyncRun(me, id))!.status).toBe('running')
		await runDncSync(id, { ...job(), retryCount: 1 }, fast)
		expect((await findDncSyncRun(me, id))!).toMatchObject({ status: 'done', sent: 60 })
		expect(received()).toHaveLength(60)
		expect(received().filter(([, n]) => n !== 1)).toEqual([])
	})

	test('an instance without the blacklist API: entries could not sync, with the reason; no crash', async () => {
		const { me } = await owner()
		// more than a batch: every one of them says why
		for (let i = 0; i < 60; i++)
			await addEntry(me, { value: `x${i}@y.com`, reason: 'manual', scope: 'account' })
		eb.setBlacklistApi(false)
		const run = await sync(me)
		expect(run.status).toBe('done')
		expect(run.problems[0]).toMatchObject({
			what: 'blacklisted emails',
			reason: expect.stringMatching(/does not offer it.*404/),
		})
		expect(run.failed).toBe(120)
		const { entries } = await listEntries(me, { limit: 100, offset: 0 })
		const states = [...(await entrySyncStates(me.accountId!, entries)).values()]
		expect(states).toHaveLength(60)
		for (const state of states)
			expect(state).toMatchObject({ state: 'failed', reason: expect.stringMatching(/404/) })
		// once it is offered, the next sync sends them
		eb.setBlacklistApi(true)
		expect(await sync(me)).toMatchObject({ status: 'done', sent: 120 })
	})

	test('a double start is one sync', async () => {
		const { me } = await owner()
		await addEntry(me, { value: 'twice@x.com', reason: 'manual', scope: 'account' })
		const [a, b] = await Promise.all([startDncSync(me, {}), startDncSync(me, {})])
		expect(a.id).toBe(b.id)
		await runDncSync(a.id, job(), fast)
		await runDncSync(b.id, job(), fast)
		expect(received().map(([, n]) => n)).toEqual([1, 1])
	})
})

describe('pull from EmailBison', () => {
	test("EmailBison's blacklists come back as entries and are not sent back", async () => {
		const { me, eb1 } = await owner()
		eb1.blacklistedEmails.set('spam@complainer.com', {
			id: 900,
			value: 'spam@complainer.com',
			created_at: new Date().toISOString(),
		})
		eb1.blacklistedDomains.set('rival.com', { id: 901, value: 'rival.com', created_at: '' })
		const run = await sync(me, { pull: true })
		expect(run).toMatchObject({ status: 'done', pulled: 2 })
		const { entries } = await listEntries(me, { limit: 100, offset: 0 })
		expect(entries.map((e) => [e.value, e.reason, e.workspaceId]).sort()).toEqual([
			['rival.com', 'emailbison', null],
			['spam@complainer.com', 'emailbison', null],
		])
		// back to the other workspace only: eb1 has them already
		expect(received()).toEqual([
			[`${[...eb.workspaces.keys()][1]} rival.com`, 1],
			[`${[...eb.workspaces.keys()][1]} spam@complainer.com`, 1],
		])
		// the unsubscribed-lead listing is unconfirmed: this instance has none, and the page says so
		expect(run.problems).toContainEqual({
			workspace: eb1.name,
			what: 'bringing in unsubscribed leads',
			reason: expect.stringMatching(/does not offer it.*404/),
		})
	})

	test('unsubscribed leads come in where the listing filters; a listing that ignores the filter brings none', async () => {
		const { me, eb1 } = await owner()
		eb.unsubscribe(eb1.id, 'Gone@Lead.com')
		eb1.leads.set('active@lead.com', {
			...eb1.leads.get('gone@lead.com')!,
			id: 555,
			email: 'active@lead.com',
			status: undefined,
		})
		eb.setUnsubscribedListing('unfiltered')
		const ignored = await sync(me, { pull: true })
		expect(ignored.problems).toContainEqual(
			expect.objectContaining({
				what: 'bringing in unsubscribed leads',
				reason: expect.stringMatching(/shape/),
			}),
		)
		expect((await listEntries(me, { limit: 100, offset: 0 })).total).toBe(0)
		eb.setUnsubscribedListing('filtered')
		const run = await sync(me, { pull: true })
		expect(run).toMatchObject({ status: 'done', pulled: 1 })
		const { entries } = await listEntries(me, { limit: 100, offset: 0 })
		expect(entries.map((e) => [e.value, e.reason])).toEqual([['gone@lead.com', 'emailbison']])
	})
})

describe('who may sync', () => {
	test("another account's runs and workspaces are 404", async () => {
		const a = await owner()
		const b = await owner()
		const run = await startDncSync(a.me, {})
		expect(statusOf(await fails(findDncSyncRun(b.me, run.id)))).toBe(404)
		expect(statusOf(await fails(startDncSync(b.me, { workspaceId: a.ws })))).toBe(404)
		expect(await findDncSyncRun(b.me)).toBeNull()
	})

	test('a restricted member syncs only its workspaces’ entries; an admin syncs account-wide ones', async () => {
		const { user, me, ws, other } = await owner()
		await addEntry(me, { value: 'all@x.com', reason: 'manual', scope: 'account' })
		await addEntry(me, { value: 'a@x.com', reason: 'manual', scope: ws })
		const member = await loadAccountContext(
			db,
			await insertMember(db, user, { workspaceIds: [ws] }),
		)
		expect(statusOf(await fails(startDncSync(member, { workspaceId: other })))).toBe(404)
		expect(statusOf(await fails(startDncSync(member, { pull: true })))).toBe(403)
		const run = await sync(member)
		expect(run).toMatchObject({ status: 'done', sent: 1 })
		expect(received().map(([k]) => k.split(' ')[1])).toEqual(['a@x.com'])
		const admin = await loadAccountContext(
			db,
			await insertMember(db, user, { role: 'admin', workspaceIds: [ws] }),
		)
		expect(await sync(admin)).toMatchObject({ status: 'done', sent: 2 })
		expect(
			received()
				.map(([k]) => k.split(' ')[1])
				.sort(),
		).toEqual(['a@x.com', 'all@x.com', 'all@x.com'])
	})
})
