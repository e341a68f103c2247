import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { RouterContextProvider } from 'react-router'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { startFakeApify, type FakeApify } from '../../../tests/fakes/apify/server.ts'
import { startFakeEmailBison, type FakeEmailBison } from '../../../tests/fakes/emailbison/server.ts'
import { newOwner } from '../../../tests/support/billing.ts'
import { accountWithCredits, settledLeadList } from '../../../tests/support/jobs.ts'
import { requestContext, type AccountContext } from '../../context.server.ts'
import { loadAccountContext } from '../../context.server.ts'
import { startWorkers, type Workers } from '../../jobs/worker.server.ts'
import * as createLeads from '../../routes/create-leads.tsx'
import * as emailbisonUpload from '../../routes/emailbison-upload.tsx'
import * as fileList from '../../routes/file-list.tsx'
import * as purchase from '../../routes/purchase.tsx'
import { statusOf } from '../../utils/http-errors.server.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { getCreditBalance } from '../billing/credits.server.ts'
import { saveEmailBisonSettings } from '../emailbison/settings.server.ts'
import { guessMapping } from '../imports/mapping.ts'
import { receiveCsvUpload } from '../imports/uploads.server.ts'
import {
	FORM_SUBMISSION_DAYS,
	oncePerSubmission,
	pruneFormSubmissions,
} from './form-submissions.server.ts'

// A form sent again (double click, back and submit, a retry, three at once) does its work
// once and every copy gets the first one's answer: the routes as the server calls them,
// against the real database, the real worker and the local fakes.
let apify: FakeApify
let eb: FakeEmailBison
let workers: Workers
beforeAll(async () => {
	process.env.DATA_DIR = mkdtempSync(path.join(tmpdir(), 'leadsmith-once-test-'))
	apify = await startFakeApify()
	eb = await startFakeEmailBison({ workspaces: 2 })
	process.env.APIFY_BASE_URL = apify.url
	process.env.APIFY_TOKEN = apify.token
	resetSingleton('config')
	workers = await startWorkers({ concurrency: 2, drainSeconds: 2 })
})
afterAll(async () => {
	await workers.stop()
	await apify.close()
	await eb.close()
})

function post(account: AccountContext, url: string, form: Record<string, string>, params = {}) {
	const context = new RouterContextProvider()
	context.set(requestContext, {
		account,
		responseHeaders: new Headers(),
		supabase: null,
		currentWorkspaceId: null,
	} as never)
	const request = new Request(`http://localhost${url}`, {
		method: 'POST',
		body: new URLSearchParams(form),
	})
	return { request, context, params } as never
}

/** What the browser gets: where it is sent and the toast cookie, or the error status. */
async function answer(promise: Promise<unknown>) {
	try {
		const response = (await promise) as Response
		return {
			status: response.status,
			location: response.headers.get('Location'),
		}
	} catch (error) {
		return { status: statusOf(error) ?? 500, location: null }
	}
}

const count = async (query: ReturnType<typeof sql<{ n: number }>>) =>
	Number((await query.execute(db)).rows[0]!.n)

describe('a form sent again does one thing', () => {
	test('create leads, twice in a row and three at once: one list, one hold, one Apify run', async () => {
		apify.scenario('once', { pollsBeforeFinish: 1 })
		const me = await accountWithCredits(1000)
		const form = (key: string) => ({
			intent: 'create',
			name: `Once ${key.slice(0, 4)}`,
			url: 'https://app.apollo.io/#/people?personTitles[]=ceo&qKeywords=once',
			count: '100',
			payWith: 'credits',
			idempotencyKey: key,
		})
		const first = randomUUID()
		const a = await answer(createLeads.action(post(me, '/create-leads', form(first))))
		const b = await answer(createLeads.action(post(me, '/create-leads', form(first))))
		expect(a.status).toBe(302)
		expect(b).toEqual(a)
		const second = randomUUID()
		const three = await Promise.all(
			[1, 2, 3].map(() => answer(createLeads.action(post(me, '/create-leads', form(second))))),
		)
		expect(three.map((r) => r.status)).toEqual([302, 302, 302])
		expect(new Set(three.map((r) => r.location)).size).toBe(1)
		expect(three[0]!.location).not.toBe(a.location)

		const lists = await db
			.selectFrom('processing_list')
			.select('id')
			.where('user_id', '=', me.accountId!)
			.execute()
		expect(lists).toHaveLength(2)
		for (const list of lists) await settledLeadList(list.id)
		// two intents: two Apify runs and two credit holds, not five
		const runs = [...apify.runs.values()].filter((r) => JSON.stringify(r.input).includes('once'))
		expect(runs).toHaveLength(2)
		expect(
			await count(sql<{ n: number }>`
				select count(*)::int as n from credit_reservations where user_id = ${me.accountId}`),
		).toBe(2)
		expect(await getCreditBalance(me.accountId!)).toBeGreaterThanOrEqual(1000 - 200)
	})

	test('three import confirmations at once: one list and one job, no 500', async () => {
		const me = await accountWithCredits()
		const uploaded = await receiveCsvUpload({
			stream: Readable.from([Buffer.from('email,first name\nada@example.com,Ada\n')]),
			fileName: 'people.csv',
			accountId: me.accountId!,
			maxBytes: 1 << 20,
		})
		const guessed = guessMapping(uploaded.head[0]!, uploaded.head.slice(1))
		const form = {
			intent: 'import',
			uploadId: uploaded.id,
			name: 'People',
			hasHeader: 'on',
			email: String(guessed.email),
			first_name: String(guessed.first_name),
			idempotencyKey: randomUUID(),
		}
		const three = await Promise.all(
			[1, 2, 3].map(() => answer(fileList.action(post(me, '/file-list', form)))),
		)
		expect(three.map((r) => r.status)).toEqual([302, 302, 302])
		expect(new Set(three.map((r) => r.location)).size).toBe(1)
		expect(
			await count(sql<{ n: number }>`
				select count(*)::int as n from processing_list where user_id = ${me.accountId}`),
		).toBe(1)
		expect(
			await count(sql<{ n: number }>`
				select count(*)::int as n from csv_imports where user_id = ${me.accountId}`),
		).toBe(1)
	})

	test('an EmailBison upload sent twice and three at once: one campaign, one upload', async () => {
		const me = await accountWithCredits()
		await saveEmailBisonSettings(me, { url: eb.url, apiKey: eb.superAdminKey })
		const account = await loadAccountContext(db, me.user)
		const list = await db
			.insertInto('processing_list')
			.values({ user_id: me.accountId!, name: 'To send', source_type: 'upload', status: 2 })
			.returning('id')
			.executeTakeFirstOrThrow()
		await db
			.insertInto('leads')
			.values({ list_id: list.id, user_id: me.accountId!, email: 'a@b.com', first_name: 'A' })
			.execute()
		const ws = [...eb.workspaces.values()][0]!
		const form = (key: string) => ({
			intent: 'upload',
			workspace: String(ws.id),
			campaign: 'new',
			newCampaign: `Once ${key.slice(0, 4)}`,
			map_email: 'email',
			map_first_name: 'first_name',
			idempotencyKey: key,
		})
		const url = `/lists/${list.id}/emailbison`
		const key = randomUUID()
		const a = await answer(
			emailbisonUpload.action(post(account, url, form(key), { listId: list.id })),
		)
		const b = await answer(
			emailbisonUpload.action(post(account, url, form(key), { listId: list.id })),
		)
		expect(a.status).toBe(302)
		expect(b).toEqual(a)
		const other = randomUUID()
		const three = await Promise.all(
			[1, 2, 3].map(() =>
				answer(emailbisonUpload.action(post(account, url, form(other), { listId: list.id }))),
			),
		)
		expect(three.map((r) => r.status)).toEqual([302, 302, 302])
		// two intents: two campaigns made at EmailBison, two uploads, two jobs
		expect([...eb.campaigns.values()].filter((c) => c.name.startsWith('Once'))).toHaveLength(2)
		expect(
			await count(sql<{ n: number }>`
				select count(*)::int as n from emailbison_upload where list_id = ${list.id}`),
		).toBe(2)
	})

	test('a credit pack bought twice opens one checkout; another pack is a new one', async () => {
		const { account } = await newOwner()
		const key = randomUUID()
		const buy = (credits: string) =>
			answer(
				purchase.action(
					post(account, '/purchase', { intent: 'buy', credits, idempotencyKey: key }),
				),
			)
		const a = await buy('1000')
		const b = await buy('1000')
		expect(a.status).toBe(302)
		expect(b).toEqual(a)
		// back on the page (same key), another pack: that is another intent
		const c = await buy('5000')
		expect(c.status).toBe(302)
		expect(c.location).not.toBe(a.location)
		expect(
			await count(sql<{ n: number }>`
				select count(*)::int as n from checkout_sessions where user_id = ${account.accountId}`),
		).toBe(2)
	})
})

test('answers older than FORM_SUBMISSION_DAYS are pruned; a copy sent after that does the work again', async () => {
	const { account } = await newOwner()
	const form = new FormData()
	form.set('idempotencyKey', randomUUID())
	form.set('credits', '1000')
	let runs = 0
	const send = () =>
		oncePerSubmission(
			{ accountId: account.user.id, form: 'prune-test', formData: form },
			async () => ++runs,
		)
	expect(await send()).toBe(1)
	expect(await send()).toBe(1)
	// a day short of the limit: kept
	const now = new Date()
	await pruneFormSubmissions(new Date(now.getTime() + (FORM_SUBMISSION_DAYS - 1) * 86_400_000))
	expect(await send()).toBe(1)
	await pruneFormSubmissions(new Date(now.getTime() + (FORM_SUBMISSION_DAYS + 1) * 86_400_000))
	expect(await send()).toBe(2)
})
