import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../../db/index.server.ts'
import {
	startFakeEmailBison,
	type FakeEmailBison,
} from '../../../../tests/fakes/emailbison/server.ts'
import { apiCall, tokenFor } from '../../../../tests/support/api.ts'
import { insertSubscription, insertUser } from '../../../../tests/support/factories.ts'
import { insertWorkspace } from '../../../../tests/support/team.ts'
import { startVerifyFakes, type VerifyFakes } from '../../../../tests/support/verification.ts'
import { hasActivePlan, loadAccountContext } from '../../../context.server.ts'
import { startWorkers, type Workers } from '../../../jobs/worker.server.ts'
import { resetSingleton } from '../../../utils/singleton.server.ts'
import { getCreditBalance, grantCredits } from '../../billing/credits.server.ts'
import { saveEmailBisonSettings } from '../../emailbison/settings.server.ts'
import { listEbWorkspaces, listUploads } from '../../emailbison/uploads.server.ts'

// EmailBison uploads through /api/v1 (issue 37 point 2, decision 0104): the upload page's
// service on the real database and worker, EmailBison's real client against its fake.

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

/** An account connected to the fake EmailBison; `plan: false`: its subscription has ended. */
async function owner(options: { plan?: boolean; credits?: number } = {}) {
	const user = await insertUser(db)
	await insertSubscription(
		db,
		user.id,
		options.plan === false ? { status: 'canceled', expiresInDays: -3 } : {},
	)
	if (options.credits)
		await grantCredits(db, {
			accountId: user.id,
			amount: options.credits,
			reason: 'admin',
			reference: user.id,
		})
	const me = await loadAccountContext(db, user)
	await saveEmailBisonSettings(me, { url: `${eb.url}/api/`, apiKey: eb.superAdminKey })
	const [workspace] = await listEbWorkspaces(user.id)
	return { user, me: await loadAccountContext(db, user), ebWorkspace: workspace!.id }
}

async function leadList(
	accountId: string,
	leads: { email: string; status?: string }[],
	workspaceId: string | null = null,
) {
	const row = await db
		.insertInto('processing_list')
		.values({
			user_id: accountId,
			name: 'List',
			source_type: 'upload',
			status: 2,
			workspace_id: workspaceId,
		})
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

const MIXED = [
	{ email: 'a@acme.com', status: 'valid' },
	{ email: 'b@acme.com', status: 'invalid' },
	{ email: 'e@acme.com', status: 'catch_all' },
	{ email: 'f@acme.com', status: 'unknown' },
	{ email: 'g@acme.com' },
]

const body = (listId: string, ebWorkspace: number, extra: Record<string, unknown> = {}) => ({
	list_id: listId,
	workspace: ebWorkspace,
	campaign: 'new',
	newCampaign: `API ${listId.slice(0, 8)}`,
	map_email: 'email',
	map_first_name: 'first_name',
	...extra,
})

const uploadsOf = (listId: string) =>
	db.selectFrom('emailbison_upload').select('id').where('list_id', '=', listId).execute()

async function finished(token: string, id: string) {
	await expect
		.poll(async () => (await apiCall('GET', `/emailbison-uploads/${id}`, { token })).body!.status, {
			timeout: 30_000,
			interval: 200,
		})
		.toMatch(/done|failed/)
}

describe('/api/v1/emailbison-uploads', () => {
	test("starts as the upload form does, once per key; status and report show the screen's counts", async () => {
		const { user, me, ebWorkspace } = await owner()
		const listId = await leadList(user.id, MIXED)
		const token = await tokenFor(user, ['uploads:write'])
		const json = body(listId, ebWorkspace, {
			leaveCatchAll: true,
			leaveUnknown: false,
			unverified: 'leave-out',
		})
		const headers = { 'Idempotency-Key': crypto.randomUUID() }
		const started = await apiCall('POST', '/emailbison-uploads', { token, json, headers })
		expect(started.status).toBe(201)
		expect(started.body).toMatchObject({
			object: 'emailbison_upload',
			list_id: listId,
			status: 'queued',
			emailbison: { workspace_id: String(ebWorkspace), campaign_name: json.newCampaign },
		})
		// sent twice: one campaign, one upload, the first answer
		const again = await apiCall('POST', '/emailbison-uploads', { token, json, headers })
		expect(again.text).toBe(started.text)
		expect(await uploadsOf(listId)).toHaveLength(1)
		expect([...eb.campaigns.values()].filter((c) => c.name === json.newCampaign)).toHaveLength(1)

		const id = started.body!.id as string
		await finished(token, id)
		const status = await apiCall('GET', `/emailbison-uploads/${id}`, { token })
		expect(status.body).toMatchObject({
			status: 'done',
			progress: { total: 2, sent: 2, rejected: 0, percent: 100 },
		})
		const report = await apiCall('GET', `/emailbison-uploads/${id}/report`, { token })
		expect(report.status).toBe(200)
		// the choices of the body: catch-all and unverified out, unknown kept
		expect(report.body).toMatchObject({
			object: 'emailbison_upload_report',
			uploaded: { sent: 2, attached: 2 },
			left_out: { invalid: 1, catch_all: 1, unverified: 1 },
			rejected: { count: 0, reasons: [] },
		})
		// the uploads screen reads the same
		const [screen] = await listUploads(me, { listId })
		expect(report.body!.left_out).toEqual(screen!.leftOut)
		expect(report.body!.emailbison.campaign_id).toBe(screen!.campaignId)
	})

	test('a dry run counts what the upload would send, creates nothing, and the upload then sends that', async () => {
		const { user, ebWorkspace } = await owner()
		const token = await tokenFor(user, ['uploads:write'])
		// a@acme.com goes to the EmailBison workspace first
		const earlier = await apiCall('POST', '/emailbison-uploads', {
			token,
			json: body(await leadList(user.id, [{ email: 'a@acme.com', status: 'valid' }]), ebWorkspace),
		})
		await finished(token, earlier.body!.id as string)
		await db
			.insertInto('do_not_contact')
			.values({ user_id: user.id, value: 'blocked.com', reason: 'manual' })
			.execute()
		const listId = await leadList(user.id, [
			...MIXED,
			{ email: 'h@acme.com', status: 'valid' },
			{ email: 'z@blocked.com', status: 'valid' },
		])
		const campaignsBefore = eb.campaigns.size
		const json = body(listId, ebWorkspace, {
			leaveCatchAll: true,
			leaveUnknown: false,
			unverified: 'leave-out',
		})
		const plan = await apiCall('POST', '/emailbison-uploads', {
			token,
			json: { ...json, dry_run: true },
		})
		expect(plan.status).toBe(200)
		expect(plan.body).toEqual({
			object: 'emailbison_upload_plan',
			dry_run: true,
			list_id: listId,
			emailbison: {
				workspace_id: String(ebWorkspace),
				workspace_name: expect.any(String),
				campaign_id: null,
				campaign_name: json.newCampaign,
			},
			do_not_contact: 1,
			already_uploaded: 1,
			verification: {
				kept: { valid: 1, unknown: 1 },
				left_out: { invalid: 1, catch_all: 1, unverified: 1 },
				to_verify: 0,
			},
			to_send: 2,
		})
		expect(eb.campaigns.size).toBe(campaignsBefore)
		expect(await uploadsOf(listId)).toHaveLength(0)

		// "verify first" counts the never-verified apart; sending duplicates counts a@acme.com in
		const verifyFirst = await apiCall('POST', '/emailbison-uploads', {
			token,
			json: { ...json, unverified: 'verify-first', includeDuplicates: 'on', dry_run: true },
		})
		expect(verifyFirst.body).toMatchObject({
			verification: { kept: { valid: 2, unknown: 1 }, to_verify: 1 },
			to_send: 3,
		})
		expect(verifyFirst.body!.verification.left_out).toEqual({ invalid: 1, catch_all: 1 })

		// the form's refusals are the dry run's too, at their field
		const unknownColumn = await apiCall('POST', '/emailbison-uploads', {
			token,
			json: { ...json, map_first_name: 'nope', dry_run: true },
		})
		expect(unknownColumn.status).toBe(400)
		expect(unknownColumn.body).toMatchObject({ field: 'map_first_name' })

		// and the upload itself sends what the plan said
		const started = await apiCall('POST', '/emailbison-uploads', { token, json })
		expect(started.status).toBe(201)
		await finished(token, started.body!.id as string)
		const report = await apiCall('GET', `/emailbison-uploads/${started.body!.id}/report`, {
			token,
		})
		expect(report.body).toMatchObject({
			uploaded: { sent: plan.body!.to_send },
			left_out: plan.body!.verification.left_out,
		})

		// another account's list is a 404 for a dry run too
		const other = await owner()
		const theirs = await tokenFor(other.user, ['uploads:write'])
		const onOurList = await apiCall('POST', '/emailbison-uploads', {
			token: theirs,
			json: { ...body(listId, other.ebWorkspace), dry_run: true },
		})
		expect(onOurList.status).toBe(404)
	})

	test("the rejected leads download as the uploads screen's CSV, streamed; another account's are a 404", async () => {
		const { user, ebWorkspace } = await owner()
		const listId = await leadList(user.id, [
			{ email: 'ok@acme.com', status: 'valid' },
			{ email: '=bad-email', status: 'valid' },
		])
		const token = await tokenFor(user, ['uploads:write'])
		const started = await apiCall('POST', '/emailbison-uploads', {
			token,
			json: body(listId, ebWorkspace, { newCampaign: 'Q3 / rejects' }),
		})
		const id = started.body!.id as string
		await finished(token, id)
		const reader = await tokenFor(user, ['uploads:read'])
		const csv = await apiCall('GET', `/emailbison-uploads/${id}/rejected`, { token: reader })
		expect(csv.status).toBe(200)
		expect(csv.headers.get('Content-Type')).toBe('text/csv; charset=utf-8')
		expect(csv.headers.get('Content-Disposition')).toBe(
			'attachment; filename="rejected-Q3-rejects.csv"',
		)
		expect(csv.headers.get('RateLimit-Limit')).not.toBeNull()
		// formula-safe, the reason in words, as the screen's file
		expect(csv.text.trim().split('\r\n')).toEqual([
			'email,first_name,last_name,reason',
			"'=bad-email,First1,,The email address is not valid.",
		])

		const other = await owner()
		const theirs = await tokenFor(other.user, ['uploads:read'])
		const refused = await apiCall('GET', `/emailbison-uploads/${id}/rejected`, { token: theirs })
		expect(refused.status).toBe(404)
		expect(refused.headers.get('Content-Type')).toMatch(/problem\+json/)
	})

	test('the same key sent twice at once starts one upload and makes one campaign', async () => {
		const { user, ebWorkspace } = await owner()
		const listId = await leadList(user.id, MIXED)
		const token = await tokenFor(user, ['uploads:write'])
		const json = body(listId, ebWorkspace)
		const headers = { 'Idempotency-Key': crypto.randomUUID() }
		const answers = await Promise.all(
			[1, 2].map(() => apiCall('POST', '/emailbison-uploads', { token, json, headers })),
		)
		// the second waits for the first's answer or is told it is still running (409)
		expect(answers.map((a) => a.status).sort()).toEqual(
			answers.some((a) => a.status === 409) ? [201, 409] : [201, 201],
		)
		expect(await uploadsOf(listId)).toHaveLength(1)
		expect([...eb.campaigns.values()].filter((c) => c.name === json.newCampaign)).toHaveLength(1)
		await finished(token, (await uploadsOf(listId))[0]!.id)
	})

	test("the form's refusals come back at their field and write nothing", async () => {
		const { user, ebWorkspace } = await owner()
		const listId = await leadList(user.id, MIXED)
		const token = await tokenFor(user, ['uploads:write'])
		const call = (json: unknown) => apiCall('POST', '/emailbison-uploads', { token, json })
		const noEmail = await call(body(listId, ebWorkspace, { map_email: undefined }))
		expect(noEmail.status).toBe(400)
		expect(noEmail.body!.errors).toEqual([
			expect.objectContaining({ field: 'map_email', message: 'Choose the column with emails' }),
		])
		const unnamed = await call(body(listId, ebWorkspace, { newCampaign: undefined }))
		expect(unnamed.body!.errors[0]).toMatchObject({ field: 'newCampaign' })
		const badChoice = await call(body(listId, ebWorkspace, { unverified: 'maybe' }))
		expect(badChoice.body!.errors[0]).toMatchObject({ field: 'unverified' })
		// the service's own refusal (a column the list does not have)
		const column = await call(body(listId, ebWorkspace, { map_first_name: 'nope' }))
		expect(column.status).toBe(400)
		expect(column.body).toMatchObject({ field: 'map_first_name' })
		const workspace = await call(body(listId, 999_999))
		expect(workspace.body).toMatchObject({ field: 'workspace' })
		expect(await uploadsOf(listId)).toHaveLength(0)
	})

	test('"verify first" holds its credits as the screen does', async () => {
		const { user, ebWorkspace } = await owner({ credits: 10 })
		const listId = await leadList(user.id, [
			{ email: 'valid1@acme.com', status: 'valid' },
			{ email: 'valid2@acme.com' },
			{ email: 'invalid2@acme.com' },
		])
		const token = await tokenFor(user, ['uploads:write'])
		const started = await apiCall('POST', '/emailbison-uploads', {
			token,
			json: body(listId, ebWorkspace, { unverified: 'verify-first' }),
		})
		expect(started.status).toBe(201)
		await finished(token, started.body!.id as string)
		const report = await apiCall('GET', `/emailbison-uploads/${started.body!.id}/report`, {
			token,
		})
		expect(report.body).toMatchObject({ uploaded: { sent: 2 }, left_out: { invalid: 1 } })
		// two unverified leads checked with credits
		expect(await getCreditBalance(user.id)).toBe(8)
	})

	test('the history pages by cursor, newest first, of one list', async () => {
		const { user, ebWorkspace } = await owner()
		const listId = await leadList(user.id, MIXED)
		const token = await tokenFor(user, ['uploads:write'])
		const ids: string[] = []
		for (const n of [1, 2, 3]) {
			const started = await apiCall('POST', '/emailbison-uploads', {
				token,
				json: body(listId, ebWorkspace, { newCampaign: `Paged ${n}`, includeDuplicates: 'on' }),
			})
			expect(started.status).toBe(201)
			ids.push(started.body!.id as string)
		}
		const first = await apiCall('GET', `/emailbison-uploads?list_id=${listId}&limit=2`, { token })
		expect(first.body).toMatchObject({ object: 'list', has_more: true })
		const second = await apiCall(
			'GET',
			`/emailbison-uploads?list_id=${listId}&limit=2&starting_after=${first.body!.next_cursor}`,
			{ token },
		)
		expect(second.body).toMatchObject({ has_more: false, next_cursor: null })
		const seen = [...first.body!.data, ...second.body!.data].map((u: { id: string }) => u.id)
		expect(seen).toEqual([...ids].reverse())
		for (const id of ids) await finished(token, id)
	})

	test("another account's ids are 404, a workspace token keeps to its workspace, a reader cannot start", async () => {
		const { user, ebWorkspace } = await owner()
		const one = await insertWorkspace(db, user.id, 'One')
		const two = await insertWorkspace(db, user.id, 'Two')
		const listInTwo = await leadList(user.id, MIXED, two)
		const token = await tokenFor(user, ['uploads:write'])
		const started = await apiCall('POST', '/emailbison-uploads', {
			token,
			json: body(listInTwo, ebWorkspace),
		})
		expect(started.status).toBe(201)
		const id = started.body!.id as string

		const other = await owner()
		const theirs = await tokenFor(other.user, ['uploads:write'])
		expect((await apiCall('GET', `/emailbison-uploads/${id}`, { token: theirs })).status).toBe(404)
		expect(
			(await apiCall('GET', `/emailbison-uploads/${id}/report`, { token: theirs })).status,
		).toBe(404)
		const onOurList = await apiCall('POST', '/emailbison-uploads', {
			token: theirs,
			json: body(listInTwo, other.ebWorkspace),
		})
		expect(onOurList.status).toBe(404)
		expect(
			(await apiCall('GET', '/emailbison-uploads', { token: theirs })).body!.data,
		).toHaveLength(0)

		// a token given workspace One sees and starts nothing of Two
		const onlyOne = await tokenFor(user, ['uploads:write'], [one])
		expect((await apiCall('GET', `/emailbison-uploads/${id}`, { token: onlyOne })).status).toBe(404)
		expect(
			(await apiCall('GET', '/emailbison-uploads', { token: onlyOne })).body!.data,
		).toHaveLength(0)
		const intoTwo = await apiCall('POST', '/emailbison-uploads', {
			token: onlyOne,
			json: body(listInTwo, ebWorkspace, { newCampaign: 'Not allowed' }),
		})
		expect(intoTwo.status).toBe(404)

		// and what is in One it starts and sees
		const listInOne = await leadList(user.id, MIXED, one)
		const inOne = await apiCall('POST', '/emailbison-uploads', {
			token: onlyOne,
			json: body(listInOne, ebWorkspace, { newCampaign: 'In One' }),
		})
		expect(inOne.status).toBe(201)
		const seen = await apiCall('GET', '/emailbison-uploads', { token: onlyOne })
		expect(seen.body!.data.map((u: { id: string }) => u.id)).toEqual([inOne.body!.id])
		await finished(token, inOne.body!.id as string)

		const reader = await tokenFor(user, ['uploads:read'])
		expect((await apiCall('GET', `/emailbison-uploads/${id}`, { token: reader })).status).toBe(200)
		const refused = await apiCall('POST', '/emailbison-uploads', {
			token: reader,
			json: body(listInTwo, ebWorkspace, { newCampaign: 'Reader' }),
		})
		expect(refused.status).toBe(403)
		expect(await uploadsOf(listInTwo)).toHaveLength(1)
		await finished(token, id)
	})

	test('an account whose plan ended reads but starts nothing, as the screens', async () => {
		const { user, me, ebWorkspace } = await owner({ plan: false })
		expect(hasActivePlan(me)).toBe(false)
		const listId = await leadList(user.id, MIXED)
		const token = await tokenFor(user, ['uploads:write', 'verifications:write'])
		const refused = await apiCall('POST', '/emailbison-uploads', {
			token,
			json: body(listId, ebWorkspace),
		})
		expect(refused.status).toBe(402)
		expect(refused.body).toMatchObject({ code: 'plan_required' })
		expect(await uploadsOf(listId)).toHaveLength(0)
		// every write whose screen needs a plan: a verification run too
		const verify = await apiCall('POST', '/verification-runs', {
			token,
			json: { list_id: listId, payWith: 'credits', only: 'all' },
		})
		expect(verify.status).toBe(402)
		// reads stay
		const list = await apiCall('GET', '/emailbison-uploads', { token })
		expect(list.status).toBe(200)
	})
})
