import { afterAll, beforeAll, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { startFakeEmailBison, type FakeEmailBison } from '../../../tests/fakes/emailbison/server.ts'
import { timesChecked } from '../../../tests/fakes/verify-outcomes.ts'
import { accountWithCredits } from '../../../tests/support/jobs.ts'
import { startVerifyFakes, type VerifyFakes } from '../../../tests/support/verification.ts'
import { loadAccountContext, type AccountContext } from '../../context.server.ts'
import { startWorkers, type Workers } from '../../jobs/worker.server.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { getCreditBalance } from '../billing/credits.server.ts'
import { saveEmailBisonSettings } from './settings.server.ts'
import {
	listEbWorkspaces,
	listUploads,
	startEmailBisonUpload,
	type StartUploadInput,
} from './uploads.server.ts'

// Issue 35 point 6: what is left out of an upload by verification status, "verify first",
// the status as a custom variable, and the report of what was left out and why.
let eb: FakeEmailBison
let fakes: VerifyFakes
let workers: Workers
beforeAll(async () => {
	eb = await startFakeEmailBison({ workspaces: 2 })
	fakes = await startVerifyFakes()
	process.env.EMAILBISON_SYNC_DELAY_SECONDS = '1'
	resetSingleton('config')
	workers = await startWorkers({ concurrency: 2, drainSeconds: 2 })
})
afterAll(async () => {
	await workers.stop()
	await Promise.all([eb.close(), fakes.mv.close(), fakes.zb.close(), fakes.reacher.close()])
})

async function account(credits = 0) {
	const me = await accountWithCredits(credits)
	await saveEmailBisonSettings(me, { url: `${eb.url}/api/`, apiKey: eb.superAdminKey })
	return loadAccountContext(db, me.user)
}

const uploadOf = async (me: AccountContext, listId: string) =>
	(await listUploads(me, { listId }))[0]!

/** A list of these emails; `status` sets our verification status as a run would have. */
async function list(accountId: string, leads: { email: string; status?: string }[]) {
	const row = await db
		.insertInto('processing_list')
		.values({ user_id: accountId, name: 'List', source_type: 'upload', status: 2 })
		.returning('id')
		.executeTakeFirstOrThrow()
	await db
		.insertInto('leads')
		.values(
			leads.map((l, i) => ({
				list_id: row.id,
				user_id: accountId,
				email: l.email,
				first_name: `First${i}`,
				verify_status: l.status ?? null,
				verified_at: l.status ? new Date() : null,
			})),
		)
		.execute()
	return row.id
}

const input = (workspace: number, extra: Partial<StartUploadInput> = {}): StartUploadInput => ({
	workspace,
	campaign: 'new',
	newCampaign: 'Verified only',
	fields: { email: 'email', first_name: 'first_name' },
	variables: [],
	...extra,
})

async function settled(uploadId: string) {
	await expect
		.poll(
			async () =>
				(
					await db
						.selectFrom('emailbison_upload')
						.select('status')
						.where('id', '=', uploadId)
						.executeTakeFirstOrThrow()
				).status,
			{ timeout: 30_000, interval: 100 },
		)
		.toBeGreaterThanOrEqual(2)
}

function campaignEmails(campaignId: string | null) {
	const campaign = eb.campaigns.get(Number(campaignId))!
	const workspace = eb.workspaces.get(campaign.workspaceId)!
	const byId = new Map([...workspace.leads.values()].map((l) => [l.id, l]))
	return campaign.leads.map((id) => byId.get(id)!)
}

const MIXED = [
	{ email: 'a@acme.com', status: 'valid' },
	{ email: 'b@acme.com', status: 'invalid' },
	{ email: 'c@acme.com', status: 'disposable' },
	{ email: 'd@acme.com', status: 'risky' },
	{ email: 'e@acme.com', status: 'catch_all' },
	{ email: 'f@acme.com', status: 'unknown' },
	{ email: 'g@acme.com' },
]

test('by default invalid, disposable, risky, catch-all and unknown are left out; the report says how many and why; the status goes as a custom variable', async () => {
	const me = await account()
	const listId = await list(me.accountId!, MIXED)
	const [workspace] = await listEbWorkspaces(me.accountId!)
	const { uploadId } = await startEmailBisonUpload(me, listId, input(workspace!.id))
	await settled(uploadId)
	const upload = await uploadOf(me, listId)
	expect(upload).toMatchObject({ status: 2, total: 2, attached: 2 })
	expect(upload.leftOut).toEqual({
		invalid: 1,
		disposable: 1,
		risky: 1,
		catch_all: 1,
		unknown: 1,
	})
	const sent = campaignEmails(upload.campaignId)
	expect(sent.map((l) => l.email).sort()).toEqual(['a@acme.com', 'g@acme.com'])
	expect(sent.find((l) => l.email === 'a@acme.com')!.custom_variables).toEqual([
		{ name: 'email_verification', value: 'valid' },
	])
	expect(sent.find((l) => l.email === 'g@acme.com')!.custom_variables).toEqual([
		{ name: 'email_verification', value: 'not verified' },
	])
})

test('catch-all and unknown may be kept; unverified leads may be left out', async () => {
	const me = await account()
	const listId = await list(me.accountId!, MIXED)
	const [workspace] = await listEbWorkspaces(me.accountId!)
	const { uploadId } = await startEmailBisonUpload(
		me,
		listId,
		input(workspace!.id, {
			leaveOut: { catchAll: false, unknown: false },
			unverified: 'leave-out',
		}),
	)
	await settled(uploadId)
	const upload = await uploadOf(me, listId)
	expect(upload.leftOut).toEqual({ invalid: 1, disposable: 1, risky: 1, unverified: 1 })
	expect(
		campaignEmails(upload.campaignId)
			.map((l) => l.email)
			.sort(),
	).toEqual(['a@acme.com', 'e@acme.com', 'f@acme.com'])
})

test('"verify first" verifies the unverified leads, then uploads by their new status', async () => {
	const me = await account(100)
	const listId = await list(me.accountId!, [
		{ email: 'valid1@acme.com', status: 'valid' },
		{ email: 'valid2@acme.com' },
		{ email: 'invalid2@acme.com' },
		{ email: 'catchall2@acme.com' },
	])
	const [workspace] = await listEbWorkspaces(me.accountId!)
	const before = fakes.mv.checks.length
	const { uploadId } = await startEmailBisonUpload(
		me,
		listId,
		input(workspace!.id, { unverified: 'verify-first' }),
	)
	await settled(uploadId)
	const upload = await uploadOf(me, listId)
	expect(upload.status).toBe(2)
	// only the three unverified were asked, once each
	const checked = timesChecked(fakes.mv.checks.slice(before))
	expect([...checked.keys()].sort()).toEqual([
		'catchall2@acme.com',
		'invalid2@acme.com',
		'valid2@acme.com',
	])
	expect(
		campaignEmails(upload.campaignId)
			.map((l) => l.email)
			.sort(),
	).toEqual(['valid1@acme.com', 'valid2@acme.com'])
	expect(upload.leftOut).toEqual({ invalid: 1, catch_all: 1 })
	// two definitive answers (valid2, invalid2) charged with credits
	expect(await getCreditBalance(me.accountId!)).toBe(98)
})

test('"verify first" without credits or a key is refused at the field and starts nothing', async () => {
	const me = await account()
	const listId = await list(me.accountId!, [{ email: 'x@acme.com' }])
	const [workspace] = await listEbWorkspaces(me.accountId!)
	await expect(
		startEmailBisonUpload(me, listId, input(workspace!.id, { unverified: 'verify-first' })),
	).rejects.toMatchObject({ field: 'unverified' })
	expect(
		await db.selectFrom('emailbison_upload').select('id').where('list_id', '=', listId).execute(),
	).toEqual([])
})
