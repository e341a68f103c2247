import { afterAll, beforeAll, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { loadAccountContext } from '../../app/context.server.ts'
import { saveEmailBisonSettings } from '../../app/services/emailbison/settings.server.ts'
import { startEmailBisonUpload } from '../../app/services/emailbison/uploads.server.ts'
import { startFakeEmailBison, type FakeEmailBison } from '../fakes/emailbison/server.ts'
import { insertUser } from '../support/factories.ts'
import { workerProcesses } from '../support/worker-process.ts'

// This process plays the web process: it only enqueues. `npm run worker` runs the
// emailbison-upload job, is killed (SIGKILL) mid-upload, and a new worker finishes it.
let eb: FakeEmailBison

beforeAll(async () => {
	eb = await startFakeEmailBison({ workspaces: 2 })
})
afterAll(async () => {
	workers.killAll()
	await eb.close()
})

const workers = workerProcesses()
const startWorker = workers.start

const uploadOf = (id: string) =>
	db.selectFrom('emailbison_upload').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

test('a worker killed mid-upload: the next one finishes, every lead in the campaign once', async () => {
	const user = await insertUser(db)
	await saveEmailBisonSettings(await loadAccountContext(db, user), {
		url: eb.url,
		apiKey: eb.superAdminKey,
	})
	const me = await loadAccountContext(db, user)
	const list = await db
		.insertInto('processing_list')
		.values({ user_id: user.id, name: 'Killed', source_type: 'upload', status: 2 })
		.returning('id')
		.executeTakeFirstOrThrow()
	const N = 5000
	await db
		.insertInto('leads')
		.values(
			Array.from({ length: N }, (_, i) => ({
				list_id: list.id,
				user_id: user.id,
				email: `k${i}@killed.com`,
				first_name: `F${i}`,
				last_name: `L${i}`,
			})),
		)
		.execute()
	const ws = [...eb.workspaces.values()][1]!
	const first = startWorker()
	await first.ready
	eb.setLatency(150)
	const { uploadId } = await startEmailBisonUpload(me, list.id, {
		workspace: ws.id,
		campaign: 'new',
		newCampaign: 'Killed',
		fields: { email: 'email', first_name: 'first_name', last_name: 'last_name' },
		variables: [],
	})
	await expect
		.poll(async () => (await uploadOf(uploadId)).sent, { timeout: 30_000, interval: 25 })
		.toBeGreaterThanOrEqual(1000)
	first.child.kill('SIGKILL')
	await new Promise((resolve) => first.child.once('exit', resolve))
	const atKill = await uploadOf(uploadId)
	expect(atKill.status).toBe(1)
	expect(atKill.sent).toBeLessThan(N)

	const second = startWorker()
	await second.ready
	await expect
		.poll(async () => (await uploadOf(uploadId)).status, { timeout: 60_000, interval: 250 })
		.toBe(2)
	const done = await uploadOf(uploadId)
	expect(done).toMatchObject({ total: N, sent: N, attached: N, rejected: 0 })
	const campaign = eb.campaigns.get(Number(done.campaign_id))!
	expect(campaign.leads).toHaveLength(N)
	expect(new Set(campaign.leads).size).toBe(N)
	expect(ws.leads.size).toBe(N)
	second.child.kill('SIGTERM')
}, 120_000)
