import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { startFakeEmailBison, type FakeEmailBison } from '../../../tests/fakes/emailbison/server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { contextOf, insertWorkspace, outcomeOf } from '../../../tests/support/team.ts'
import { saveEmailBisonSettings } from '../emailbison/settings.server.ts'
import { inboxesBesideEmailBison } from './emailbison-view.server.ts'

let eb: FakeEmailBison
beforeAll(async () => {
	eb = await startFakeEmailBison({ workspaces: 1 })
})
afterAll(() => eb.close())

async function ownerWithInboxes(url?: string) {
	const user = await insertUser(db)
	const workspaceId = await insertWorkspace(db, user.id, 'Main')
	const name = `eb-${Math.random().toString(36).slice(2, 8)}.com`
	const domain = await db
		.insertInto('domains')
		.values({ user_id: user.id, workspace_id: workspaceId, name, source: 'imported' })
		.returning('id')
		.executeTakeFirstOrThrow()
	await db
		.insertInto('inboxes')
		.values(
			['ada', 'bob', 'cy'].map((local) => ({
				user_id: user.id,
				workspace_id: workspaceId,
				domain_id: domain.id,
				address: `${local}@${name}`,
				provider: 'google',
				status: 'active',
			})),
		)
		.execute()
	if (url)
		await saveEmailBisonSettings(await contextOf(db, user), { url, apiKey: eb.superAdminKey })
	return { account: await contextOf(db, user), domainId: domain.id, name }
}

describe('inboxes beside EmailBison', () => {
	test('each address found in the workspace shows its connection, daily limit and warm-up; what its answer lacks is named', async () => {
		const { account, domainId, name } = await ownerWithInboxes(`${eb.url}/api`)
		eb.workspaces
			.get(eb.currentWorkspace())!
			.senderEmails.push(
				{ id: 1, email: `ADA@${name}`, status: 'Connected', daily_limit: 30, warmup_enabled: true },
				{ id: 2, email: `bob@${name}`, status: 'Disconnected' },
				{ id: 3, email: 'someone@else.com', status: 'Connected' },
			)
		const view = await inboxesBesideEmailBison(account, domainId)
		expect(view.emailBison).toEqual({ state: 'read' })
		expect(view.inboxes.map((i) => [i.address, i.emailBison])).toEqual([
			[`ada@${name}`, { connected: true, dailyLimit: 30, warmup: 'on', unread: [] }],
			[
				`bob@${name}`,
				{ connected: false, dailyLimit: null, warmup: null, unread: ['daily limit', 'warm-up'] },
			],
			[`cy@${name}`, null],
		])
	})

	test('no EmailBison settings: our order alone, and the page is told', async () => {
		const { account, domainId } = await ownerWithInboxes()
		const view = await inboxesBesideEmailBison(account, domainId)
		expect(view.emailBison).toEqual({ state: 'not-connected' })
		expect(view.inboxes).toHaveLength(3)
	})

	test('an EmailBison that cannot be reached: our order whole, and why', async () => {
		const gone = await startFakeEmailBison({ workspaces: 1 })
		const { account, domainId } = await ownerWithInboxes(`${gone.url}/api`)
		await gone.close()
		const view = await inboxesBesideEmailBison(account, domainId, {
			client: { retryDelayMs: 1, timeoutMs: 1000 },
		})
		expect(view.emailBison.state).toBe('error')
		expect(view.inboxes.map((i) => i.emailBison)).toEqual([null, null, null])
	})

	test('another account’s domain is 404', async () => {
		const theirs = await ownerWithInboxes()
		const mine = await ownerWithInboxes()
		expect(await outcomeOf(() => inboxesBesideEmailBison(mine.account, theirs.domainId))).toBe(404)
	})
})
