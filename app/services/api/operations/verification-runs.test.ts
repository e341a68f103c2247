import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../../db/index.server.ts'
import { apiCall, apiOwner, tokenFor } from '../../../../tests/support/api.ts'
import { insertWorkspace } from '../../../../tests/support/team.ts'
import {
	insertEmails,
	startVerifyFakes,
	type VerifyFakes,
} from '../../../../tests/support/verification.ts'
import { getCreditBalance, grantCredits } from '../../billing/credits.server.ts'

// Verification runs through /api/v1 (issue 37 point 2): the verify page's service (estimate as
// the dry run, start with its hold, status, cancel with its refund) on the real database.

process.env.DATA_DIR = mkdtempSync(path.join(tmpdir(), 'leadsmith-api-verify-'))
let fakes: VerifyFakes
beforeAll(async () => {
	fakes = await startVerifyFakes()
})
afterAll(async () => {
	await Promise.all([fakes.mv.close(), fakes.zb.close(), fakes.reacher.close()])
})

const EMAILS = ['a@acme.com', 'b@acme.com', 'c@acme.com']

async function setUp() {
	const user = await apiOwner()
	await grantCredits(db, { accountId: user.id, amount: 50, reason: 'admin', reference: user.id })
	const listId = await insertEmails(user.id, EMAILS)
	return { user, listId }
}

const runsOf = (accountId: string) =>
	db.selectFrom('verification_runs').select('id').where('user_id', '=', accountId).execute()

describe('/api/v1/verification-runs', () => {
	test('a dry run estimates; a run holds its credits, shows, and cancels with a refund', async () => {
		const { user, listId } = await setUp()
		const token = await tokenFor(user, ['verifications:write'])
		const body = { list_id: listId, payWith: 'credits', only: 'all' }
		const dry = await apiCall('POST', '/verification-runs', {
			token,
			json: { ...body, dry_run: true },
		})
		expect(dry.status).toBe(200)
		expect(dry.body).toMatchObject({
			object: 'verification_run_estimate',
			rows: 3,
			to_check: 3,
			cost: { credits: 3 },
		})
		expect(await runsOf(user.id)).toHaveLength(0)
		const started = await apiCall('POST', '/verification-runs', { token, json: body })
		expect(started.status).toBe(201)
		expect(started.body).toMatchObject({ object: 'verification_run', list_id: listId, total: 3 })
		expect(await getCreditBalance(user.id)).toBe(47)
		const id = started.body!.id as string
		expect((await apiCall('GET', `/verification-runs/${id}`, { token })).body).toMatchObject({
			id,
			status: 0,
			notes: [],
		})
		// what the run page says of a run that could not do all it was asked, the API says too
		const note = 'The bulk service was not there, so emails were checked one by one.'
		await db
			.updateTable('verification_runs')
			.set({ notes: [note] })
			.where('id', '=', id)
			.execute()
		expect((await apiCall('GET', `/verification-runs/${id}`, { token })).body!.notes).toEqual([
			note,
		])
		// one run of a list at a time: the page's refusal, as a problem
		const second = await apiCall('POST', '/verification-runs', { token, json: body })
		expect(second.status).toBe(400)
		const cancelled = await apiCall('POST', `/verification-runs/${id}/cancel`, { token })
		expect(cancelled.status).toBe(200)
		expect(cancelled.body).toMatchObject({ id, status: 3, error: 'Cancelled' })
		expect(await getCreditBalance(user.id)).toBe(50)
	})

	test("another account's run is 404, a workspace token keeps to its own, a reader cannot start", async () => {
		const { user, listId } = await setUp()
		const other = await setUp()
		const token = await tokenFor(user, ['verifications:write'])
		const started = await apiCall('POST', '/verification-runs', {
			token,
			json: { list_id: listId, payWith: 'credits', only: 'all' },
		})
		expect(started.status).toBe(201)
		const id = started.body!.id as string
		const theirs = await tokenFor(other.user, ['verifications:write'])
		expect((await apiCall('GET', `/verification-runs/${id}`, { token: theirs })).status).toBe(404)
		expect(
			(await apiCall('POST', `/verification-runs/${id}/cancel`, { token: theirs })).status,
		).toBe(404)
		const onTheirList = await apiCall('POST', '/verification-runs', {
			token: theirs,
			json: { list_id: listId, payWith: 'credits', only: 'all' },
		})
		expect(onTheirList.status).toBe(404)
		const one = await insertWorkspace(db, user.id, 'One')
		const onlyOne = await tokenFor(user, ['verifications:read'], [one])
		expect((await apiCall('GET', `/verification-runs/${id}`, { token: onlyOne })).status).toBe(404)
		const reader = await tokenFor(other.user, ['verifications:read'])
		const refused = await apiCall('POST', '/verification-runs', {
			token: reader,
			json: { list_id: other.listId, payWith: 'credits', only: 'all' },
		})
		expect(refused.status).toBe(403)
		expect(await runsOf(other.user.id)).toHaveLength(0)
	})
})
