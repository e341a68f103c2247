import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { db } from '../../../../db/index.server.ts'
import { apiCall, apiOwner, tokenFor } from '../../../../tests/support/api.ts'
import {
	fakeOpenAIAndWorkers,
	insertLeadList,
	settledRun,
} from '../../../../tests/support/enrichment.ts'
import { insertWorkspace } from '../../../../tests/support/team.ts'
import { loadAccountContext } from '../../../context.server.ts'
import { getCreditBalance, grantCredits } from '../../billing/credits.server.ts'
import { createEnrichment } from '../../enrichments/enrichments.server.ts'

// Enrichment runs through /api/v1 (issue 37 point 2): started on a list or a filtered part of
// it with the enrich page's service, their status and their results, end to end against the
// local OpenAI fake and this process's workers.

process.env.DATA_DIR = mkdtempSync(path.join(tmpdir(), 'leadsmith-api-enrich-'))
fakeOpenAIAndWorkers()

const summary = {
	name: 'Summary',
	prompt: 'Describe {{company_name}} for {{email}}',
	outputColumn: 'summary',
	outputFormat: 'text' as const,
	model: 'gpt-4o-mini',
	temperature: 0,
}

/** An owner with credits, a 6-lead list and an enrichment. */
async function setUp(credits = 100) {
	const user = await apiOwner()
	await grantCredits(db, {
		accountId: user.id,
		amount: credits,
		reason: 'admin',
		reference: user.id,
	})
	const listId = await insertLeadList(user.id, 6)
	const enrichment = await createEnrichment(await loadAccountContext(db, user), summary)
	return { user, listId, target: `enrichment:${enrichment.id}` }
}

const runsOf = (accountId: string) =>
	db.selectFrom('enrichment_runs').select('id').where('user_id', '=', accountId).execute()

describe('/api/v1/enrichment-runs', () => {
	test('a dry run answers the estimate and starts nothing', async () => {
		const { user, listId, target } = await setUp()
		const token = await tokenFor(user, ['enrichments:write'])
		const dry = await apiCall('POST', '/enrichment-runs', {
			token,
			json: { list_id: listId, target, payWith: 'credits', dry_run: true },
		})
		expect(dry.status).toBe(200)
		expect(dry.body).toMatchObject({
			object: 'enrichment_run_estimate',
			dry_run: true,
			rows: 6,
			cost: { credits: 6, pay_with: 'credits' },
		})
		expect(await runsOf(user.id)).toHaveLength(0)
		expect(await getCreditBalance(user.id)).toBe(100)
	})

	test('a run on a filter takes only its leads; its status and results page by cursor', async () => {
		const { user, listId, target } = await setUp()
		const token = await tokenFor(user, ['enrichments:write'])
		// a company domain on even rows only: persons 0, 2 and 4
		const started = await apiCall('POST', '/enrichment-runs', {
			token,
			json: {
				list_id: listId,
				target,
				payWith: 'credits',
				where: [{ column: 'company_domain', op: 'not-empty' }],
			},
		})
		expect(started.status).toBe(201)
		expect(started.body).toMatchObject({
			object: 'enrichment_run',
			list_id: listId,
			total: 3,
			filter: ['company_domain is not empty'],
		})
		const id = started.body!.id as string
		await settledRun(id)
		const shown = await apiCall('GET', `/enrichment-runs/${id}`, { token })
		expect(shown.body).toMatchObject({ id, status: 2, done: 3, failed: 0, total: 3 })
		const first = await apiCall('GET', `/enrichment-runs/${id}/results?limit=2`, { token })
		expect(first.status).toBe(200)
		expect(first.body!.data).toHaveLength(2)
		expect(first.body).toMatchObject({ has_more: true })
		expect(first.body!.data[0]).toMatchObject({
			email: 'person0@example.com',
			status: 'done',
			output: { summary: expect.any(String) },
		})
		const second = await apiCall(
			'GET',
			`/enrichment-runs/${id}/results?limit=2&starting_after=${first.body!.next_cursor}`,
			{ token },
		)
		expect(second.body!.data.map((r: { email: string }) => r.email)).toEqual([
			'person4@example.com',
		])
		expect(second.body).toMatchObject({ has_more: false, next_cursor: null })
	})

	test("another account's list or run is 404; a workspace token keeps to its workspace", async () => {
		const { user, listId, target } = await setUp()
		const other = await setUp()
		const mine = await tokenFor(user, ['enrichments:write'])
		const run = await apiCall('POST', '/enrichment-runs', {
			token: mine,
			json: { list_id: listId, target, payWith: 'credits' },
		})
		expect(run.status).toBe(201)
		const id = run.body!.id as string
		const theirs = await tokenFor(other.user, ['enrichments:write'])
		expect((await apiCall('GET', `/enrichment-runs/${id}`, { token: theirs })).status).toBe(404)
		expect((await apiCall('GET', `/enrichment-runs/${id}/results`, { token: theirs })).status).toBe(
			404,
		)
		const onTheirs = await apiCall('POST', '/enrichment-runs', {
			token: theirs,
			json: { list_id: listId, target: other.target, payWith: 'credits' },
		})
		expect(onTheirs.status).toBe(404)
		// the list moves to workspace two; a token for workspace one no longer sees it
		const one = await insertWorkspace(db, user.id, 'One')
		const two = await insertWorkspace(db, user.id, 'Two')
		await db
			.updateTable('processing_list')
			.set({ workspace_id: two })
			.where('id', '=', listId)
			.execute()
		const onlyOne = await tokenFor(user, ['enrichments:write'], [one])
		expect((await apiCall('GET', `/enrichment-runs/${id}`, { token: onlyOne })).status).toBe(404)
	})

	test('a read token cannot start a run', async () => {
		const { user, listId, target } = await setUp()
		const reader = await tokenFor(user, ['enrichments:read'])
		const refused = await apiCall('POST', '/enrichment-runs', {
			token: reader,
			json: { list_id: listId, target, payWith: 'credits' },
		})
		expect(refused.status).toBe(403)
		expect(await runsOf(user.id)).toHaveLength(0)
	})
})
