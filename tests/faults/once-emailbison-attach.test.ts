import { afterAll, beforeAll, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { loadAccountContext } from '../../app/context.server.ts'
import { saveEmailBisonSettings } from '../../app/services/emailbison/settings.server.ts'
import { startEmailBisonUpload } from '../../app/services/emailbison/uploads.server.ts'
import { startFakeEmailBison, type FakeEmailBison } from '../fakes/emailbison/server.ts'
import { insertUser } from '../support/factories.ts'
import { workerProcesses } from '../support/worker-process.ts'

// The worker is killed (SIGKILL) after EmailBison took an attach of 500 leads but before the
// worker could write its checkpoint; the next worker must not attach those 500 again. At the
// second attach the upload is mid-pipeline: the first attach's checkpoint may be committing,
// the third batch's upsert in flight (decision 0034).
let eb: FakeEmailBison
const workers = workerProcesses()

beforeAll(async () => {
	eb = await startFakeEmailBison({ workspaces: 2 })
})
afterAll(async () => {
	workers.killAll()
	await eb.close()
})

const uploadOf = (id: string) =>
	db.selectFrom('emailbison_upload').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

test.each([1, 2])(
	'a worker killed between attach %i and its checkpoint: each lead is attached once',
	async (attachNumber) => {
		const user = await insertUser(db)
		await saveEmailBisonSettings(await loadAccountContext(db, user), {
			url: eb.url,
			apiKey: eb.superAdminKey,
		})
		const me = await loadAccountContext(db, user)
		const list = await db
			.insertInto('processing_list')
			.values({ user_id: user.id, name: 'Attach once', source_type: 'upload', status: 2 })
			.returning('id')
			.executeTakeFirstOrThrow()
		const N = 1200
		await db
			.insertInto('leads')
			.values(
				Array.from({ length: N }, (_, i) => ({
					list_id: list.id,
					user_id: user.id,
					email: `once${i}@attach.com`,
					first_name: `F${i}`,
					last_name: `L${i}`,
				})),
			)
			.execute()
		const ws = [...eb.workspaces.values()][1]!
		const first = workers.start()
		await first.ready
		const killed = new Promise<void>((resolve) => {
			const kill = async () => {
				const exited = new Promise((done) => first.child.once('exit', done))
				first.child.kill('SIGKILL')
				await exited
				resolve()
			}
			eb.afterNextAttach(attachNumber === 1 ? kill : async () => eb.afterNextAttach(kill))
		})
		const { uploadId } = await startEmailBisonUpload(me, list.id, {
			workspace: ws.id,
			campaign: 'new',
			newCampaign: 'Attach once',
			fields: { email: 'email', first_name: 'first_name', last_name: 'last_name' },
			variables: [],
		})
		await killed
		const atKill = await uploadOf(uploadId)
		const campaign = eb.campaigns.get(Number(atKill.campaign_id))!
		// EmailBison has these 500 (and any before); our checkpoint does not know it
		expect(campaign.leads).toHaveLength(500 * attachNumber)
		expect(atKill).toMatchObject({ status: 1, attach_unsure: true })
		expect(atKill.attached).toBeLessThan(500 * attachNumber)

		const second = workers.start()
		await second.ready
		await expect
			.poll(async () => (await uploadOf(uploadId)).status, { timeout: 60_000, interval: 200 })
			.toBe(2)
		const done = await uploadOf(uploadId)
		expect(done).toMatchObject({ total: N, sent: N, attached: N, attach_unsure: false })
		expect(campaign.leads).toHaveLength(N)
		expect(new Set(campaign.leads).size).toBe(N)
		// no lead was ever sent to attach-leads twice
		expect([...campaign.attachCalls.values()].filter((n) => n !== 1)).toEqual([])
		expect(eb.count(`GET /api/campaigns/${campaign.id}/leads`)).toBeGreaterThan(0)
		second.child.kill('SIGTERM')
	},
	100_000,
)
