import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../../db/index.server.ts'
import { apiCall, apiOwner, tokenFor } from '../../../../tests/support/api.ts'
import { insertWorkspace } from '../../../../tests/support/team.ts'
import { resetSingleton } from '../../../utils/singleton.server.ts'
import { getCreditBalance, grantCredits } from '../../billing/credits.server.ts'

// Lead scrapes and company searches through /api/v1 (issue 37 point 2): the create forms'
// services with a cost estimate and a dry run, status and cancel, against the real database.

process.env.DATA_DIR = mkdtempSync(path.join(tmpdir(), 'leadsmith-api-scrapes-'))
beforeAll(() => {
	// credits are spent on the platform's keys; no worker runs, so a scrape stays queued
	process.env.APIFY_TOKEN = 'apify-platform-token'
	process.env.APOLLO_API_KEY = 'apollo-platform-key'
	process.env.CREDITS_PER_LEAD = '2'
	process.env.CREDITS_PER_COMPANY = '3'
	resetSingleton('config')
})

const SEARCH = 'https://app.apollo.io/#/people?personTitles[]=ceo&personLocations[]=Berlin'
const COMPANY_SEARCH = 'https://app.apollo.io/#/companies?organizationLocations[]=Berlin'

async function ownerWithCredits(credits: number) {
	const user = await apiOwner()
	await grantCredits(db, {
		accountId: user.id,
		amount: credits,
		reason: 'admin',
		reference: `seed-${user.id}`,
	})
	return user
}

const listsOf = (accountId: string) =>
	db.selectFrom('processing_list').select('id').where('user_id', '=', accountId).execute()

describe('/api/v1/lead-scrapes', () => {
	test('a dry run answers the cost and creates nothing', async () => {
		const a = await ownerWithCredits(1000)
		const token = await tokenFor(a, ['scrapes:write'])
		const result = await apiCall('POST', '/lead-scrapes', {
			token,
			json: { name: 'CEOs', url: SEARCH, count: 150, payWith: 'credits', dry_run: true },
		})
		expect(result.status).toBe(200)
		expect(result.body).toMatchObject({
			object: 'lead_scrape_estimate',
			dry_run: true,
			requested: 150,
			cost: { credits: 300, pay_with: 'credits' },
			balance: 1000,
		})
		expect(await listsOf(a.id)).toHaveLength(0)
		expect(await getCreditBalance(a.id)).toBe(1000)
	})

	test('a dry run refuses what the real one would: too few credits, at the field', async () => {
		const a = await ownerWithCredits(10)
		const token = await tokenFor(a, ['scrapes:write'])
		const result = await apiCall('POST', '/lead-scrapes', {
			token,
			json: { name: 'CEOs', url: SEARCH, count: 150, payWith: 'credits', dry_run: true },
		})
		expect(result.status).toBe(400)
		expect(result.headers.get('Content-Type')).toBe('application/problem+json')
		expect(result.body).toMatchObject({ errors: [{ field: 'count' }] })
	})

	test('creates a scrape holding its credits, shows its status, cancels it and refunds', async () => {
		const a = await ownerWithCredits(1000)
		const token = await tokenFor(a, ['scrapes:write'])
		const created = await apiCall('POST', '/lead-scrapes', {
			token,
			json: { name: 'CEOs', url: SEARCH, count: 100, payWith: 'credits' },
		})
		expect(created.status).toBe(201)
		expect(created.body).toMatchObject({
			object: 'lead_scrape',
			name: 'CEOs',
			status: 0,
			requested: 100,
			cost: { credits: 200, pay_with: 'credits' },
		})
		const id = created.body!.id as string
		expect(await getCreditBalance(a.id)).toBe(800)
		const shown = await apiCall('GET', `/lead-scrapes/${id}`, { token })
		expect(shown.status).toBe(200)
		expect(shown.body).toMatchObject({ id, object: 'lead_scrape', status: 0, found: 0 })
		const cancelled = await apiCall('POST', `/lead-scrapes/${id}/cancel`, { token })
		expect(cancelled.status).toBe(200)
		expect(cancelled.body).toMatchObject({ id, status: 3, error: 'Cancelled' })
		expect(await getCreditBalance(a.id)).toBe(1000)
		// a second cancel: the form's refusal, as a problem
		const again = await apiCall('POST', `/lead-scrapes/${id}/cancel`, { token })
		expect(again.status).toBe(400)
	})

	test('an address that is not an Apollo people search is refused at `url`', async () => {
		const a = await ownerWithCredits(1000)
		const token = await tokenFor(a, ['scrapes:write'])
		const result = await apiCall('POST', '/lead-scrapes', {
			token,
			json: { name: 'X', url: 'https://example.com/', count: 10, payWith: 'credits' },
		})
		expect(result.status).toBe(400)
		expect(result.body).toMatchObject({ errors: [{ field: 'url' }] })
		expect(await listsOf(a.id)).toHaveLength(0)
	})

	test("another account's scrape is 404; a workspace token sees only its workspace", async () => {
		const a = await ownerWithCredits(1000)
		const b = await ownerWithCredits(1000)
		const one = await insertWorkspace(db, a.id, 'One')
		const two = await insertWorkspace(db, a.id, 'Two')
		const all = await tokenFor(a, ['scrapes:write'])
		const inTwo = await apiCall('POST', '/lead-scrapes', {
			token: all,
			json: { name: 'Two', url: SEARCH, count: 5, payWith: 'credits', workspaceId: two },
		})
		expect(inTwo.status).toBe(201)
		const id = inTwo.body!.id as string
		const theirs = await tokenFor(b, ['scrapes:write'])
		expect((await apiCall('GET', `/lead-scrapes/${id}`, { token: theirs })).status).toBe(404)
		expect((await apiCall('POST', `/lead-scrapes/${id}/cancel`, { token: theirs })).status).toBe(
			404,
		)
		const onlyOne = await tokenFor(a, ['scrapes:write'], [one])
		expect((await apiCall('GET', `/lead-scrapes/${id}`, { token: onlyOne })).status).toBe(404)
		// nor may it create in a workspace it was not given
		const elsewhere = await apiCall('POST', '/lead-scrapes', {
			token: onlyOne,
			json: { name: 'Two', url: SEARCH, count: 5, payWith: 'credits', workspaceId: two },
		})
		expect(elsewhere.status).toBe(400)
		expect(elsewhere.body).toMatchObject({ errors: [{ field: 'workspaceId' }] })
	})

	test('a read token cannot start or cancel a scrape', async () => {
		const a = await ownerWithCredits(1000)
		const reader = await tokenFor(a, ['scrapes:read'])
		const refused = await apiCall('POST', '/lead-scrapes', {
			token: reader,
			json: { name: 'CEOs', url: SEARCH, count: 5, payWith: 'credits' },
		})
		expect(refused.status).toBe(403)
		expect(refused.body).toMatchObject({ code: 'insufficient_scope' })
		expect(await listsOf(a.id)).toHaveLength(0)
	})

	test('the same Idempotency-Key starts one scrape and holds credits once', async () => {
		const a = await ownerWithCredits(1000)
		const token = await tokenFor(a, ['scrapes:write'])
		const send = () =>
			apiCall('POST', '/lead-scrapes', {
				token,
				headers: { 'Idempotency-Key': 'scrape-once' },
				json: { name: 'Once', url: SEARCH, count: 10, payWith: 'credits' },
			})
		const first = await send()
		const second = await send()
		expect(second.text).toBe(first.text)
		expect(await listsOf(a.id)).toHaveLength(1)
		expect(await getCreditBalance(a.id)).toBe(980)
	})
})

describe('/api/v1/company-searches', () => {
	test('domains: a dry run costs each domain, then the search starts, shows and cancels', async () => {
		const a = await ownerWithCredits(100)
		const token = await tokenFor(a, ['scrapes:write'])
		const body = { name: 'Firms', source: 'domains', domains: 'a.com\nb.com', payWith: 'credits' }
		const dry = await apiCall('POST', '/company-searches', {
			token,
			json: { ...body, dry_run: true },
		})
		expect(dry.status).toBe(200)
		expect(dry.body).toMatchObject({
			object: 'company_search_estimate',
			requested: 2,
			cost: { credits: 6 },
		})
		const created = await apiCall('POST', '/company-searches', { token, json: body })
		expect(created.status).toBe(201)
		expect(created.body).toMatchObject({ object: 'company_search', requested: 2, status: 0 })
		const id = created.body!.id as string
		expect(await getCreditBalance(a.id)).toBe(94)
		expect((await apiCall('GET', `/company-searches/${id}`, { token })).body).toMatchObject({
			id,
			source: 'domains',
		})
		const cancelled = await apiCall('POST', `/company-searches/${id}/cancel`, { token })
		expect(cancelled.body).toMatchObject({ id, status: 3 })
		expect(await getCreditBalance(a.id)).toBe(100)
	})

	test('an Apollo company search, and its refusals at the field', async () => {
		const a = await ownerWithCredits(100)
		const token = await tokenFor(a, ['scrapes:write'])
		const created = await apiCall('POST', '/company-searches', {
			token,
			json: {
				name: 'Berlin',
				source: 'apollo',
				url: COMPANY_SEARCH,
				count: 20,
				payWith: 'credits',
			},
		})
		expect(created.status).toBe(201)
		expect(created.body).toMatchObject({ cost: { credits: 60 }, source: 'apollo' })
		const noUrl = await apiCall('POST', '/company-searches', {
			token,
			json: { name: 'Berlin', source: 'apollo', count: 20, payWith: 'credits' },
		})
		expect(noUrl.status).toBe(400)
		expect(noUrl.body).toMatchObject({ errors: [{ field: 'url' }] })
		const b = await apiOwner()
		const theirs = await tokenFor(b, ['scrapes:read'])
		const id = created.body!.id as string
		expect((await apiCall('GET', `/company-searches/${id}`, { token: theirs })).status).toBe(404)
		const reader = await tokenFor(a, ['scrapes:read'])
		expect(
			(await apiCall('POST', `/company-searches/${id}/cancel`, { token: reader })).status,
		).toBe(403)
	})
})
