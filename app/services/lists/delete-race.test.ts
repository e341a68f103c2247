import type { Kysely } from 'kysely'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { startFakeEmailBison, type FakeEmailBison } from '../../../tests/fakes/emailbison/server.ts'
import { insertCompanyList, insertLeadList } from '../../../tests/support/enrichment.ts'
import { accountWithCredits } from '../../../tests/support/jobs.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { FormError, statusOf } from '../../utils/http-errors.server.ts'
import { createEnrichment } from '../enrichments/enrichments.server.ts'
import { retryFailedRows, startRun } from '../enrichments/start-enrichment.server.ts'
import { saveEmailBisonSettings } from '../emailbison/settings.server.ts'
import { listEbWorkspaces, startEmailBisonUpload } from '../emailbison/uploads.server.ts'
import { deleteScrapeList, retryScrape } from '../leads/scrape-lists.server.ts'
import { startVerification } from '../verification/verify-runs.server.ts'
import { deleteLeadList } from './manage-list.server.ts'

// A list's delete and a run's start at the same instant, on two real connections (decision
// 0107): exactly one of them wins, the other gets the user's message (a refusal, or the list's
// 404), never a run on a deleted list nor a foreign-key error. No worker runs here: the runs'
// jobs stay queued, so a run stays "running".

let eb: FakeEmailBison
beforeAll(async () => {
	eb = await startFakeEmailBison({ workspaces: 2 })
	Object.assign(process.env, {
		OPENAI_API_KEY: 'sk-test',
		CREDITS_PER_ENRICHMENT: '1',
		VERIFY_PROVIDER: 'millionverifier',
		MILLIONVERIFIER_API_KEY: 'mv-test',
		CREDITS_PER_VERIFICATION: '1',
	})
	resetSingleton('config')
})
afterAll(async () => {
	await eb.close()
})

type Me = Awaited<ReturnType<typeof accountWithCredits>>

async function enrichmentOf(me: Me) {
	const e = await createEnrichment(me, {
		name: 'Profile',
		prompt: 'Classify {{name}}',
		outputColumn: 'profile',
		outputFormat: 'text',
		model: 'gpt-4o-mini',
		temperature: 0,
	})
	return `enrichment:${e.id}`
}

/** Settles a promise into what a caller would see, without throwing. */
function outcome<T>(promise: Promise<T>) {
	return promise.then(
		(value) => ({ ok: true as const, value }),
		(error: unknown) => ({ ok: false as const, error }),
	)
}

/** Waits until some statement of this database waits on a row lock (the other side's). */
async function someoneWaitsOnALock() {
	await expect
		.poll(
			async () => {
				const { rows } = await sql<{ n: number }>`
					select count(*)::int as n from pg_stat_activity
					where datname = current_database() and wait_event_type = 'Lock'`.execute(db)
				return rows[0]!.n
			},
			{ timeout: 10_000, interval: 20 },
		)
		.toBeGreaterThan(0)
}

/**
 * Runs `work` in a transaction held open after it returned, until `commit()`: the start (or
 * delete) past its check, not yet committed.
 */
async function held<T>(work: (trx: Kysely<DB>) => Promise<T>) {
	let commit!: () => void
	const gate = new Promise<void>((resolve) => (commit = resolve))
	let reached!: () => void
	const atGate = new Promise<void>((resolve) => (reached = resolve))
	const done = outcome(
		db.transaction().execute(async (trx) => {
			const value = await work(trx)
			reached()
			await gate
			return value
		}),
	)
	await Promise.race([atGate, done])
	return { commit, done }
}

/** A start held open, then a delete, then the start commits: the delete waits and is refused. */
async function startThenDelete<T>(
	start: (trx: Kysely<DB>) => Promise<T>,
	remove: () => Promise<unknown>,
) {
	const starting = await held(start)
	const deleting = outcome(remove())
	await someoneWaitsOnALock()
	starting.commit()
	return { start: await starting.done, remove: await deleting }
}

/** A delete held open (its row deleted, not committed), then a start, then the delete commits. */
async function deleteThenStart<T>(
	table: 'processing_list' | 'company_scraping_list',
	listId: string,
	start: () => Promise<T>,
) {
	const deleting = await held((trx) => trx.deleteFrom(table).where('id', '=', listId).execute())
	const starting = outcome(start())
	await someoneWaitsOnALock()
	deleting.commit()
	return { remove: await deleting.done, start: await starting }
}

async function listExists(table: 'processing_list' | 'company_scraping_list', id: string) {
	return !!(await db.selectFrom(table).select('id').where('id', '=', id).executeTakeFirst())
}

/** Credits held by no run any more (a run deleted with its list keeps its hold otherwise). */
async function orphanHolds(accountId: string) {
	const { rows } = await sql<{ n: number }>`
		select count(*)::int as n from credits c
		join credit_reservations r on r.user_id = c.user_id and r.reference = c.reference
		where c.user_id = ${accountId} and c.reason = 'reservation' and r.status <> 'settled'
			and (
				(c.enrichment_run_id is not null and not exists (select 1 from enrichment_runs e where e.id = c.enrichment_run_id))
				or (c.verification_run_id is not null and not exists (select 1 from verification_runs v where v.id = c.verification_run_id))
			)`.execute(db)
	return rows[0]!.n
}

function expectRefused(result: { ok: boolean; error?: unknown }, message: RegExp) {
	expect(result.ok).toBe(false)
	expect(result.error).toBeInstanceOf(FormError)
	expect((result.error as FormError).message).toMatch(message)
}

function expectGone(result: { ok: boolean; error?: unknown }) {
	expect(result.ok).toBe(false)
	// the list's 404, as for a list deleted before the form was sent: not a database error
	expect(statusOf(result.error), String(result.error)).toBe(404)
}

describe('a run starting while its list is deleted', () => {
	test('an enrichment of a lead list: the delete waits for the start and is refused', async () => {
		const me = await accountWithCredits(100)
		const listId = await insertLeadList(me.accountId!, 5)
		const target = await enrichmentOf(me)
		const { start, remove } = await startThenDelete(
			(trx) => startRun(me, { listId, target, payWith: 'credits' }, trx),
			() => deleteLeadList(me, listId),
		)
		expect(start.ok).toBe(true)
		expectRefused(remove, /An enrichment is running on this list/)
		expect(await listExists('processing_list', listId)).toBe(true)
		expect(await orphanHolds(me.accountId!)).toBe(0)
	})

	test('an enrichment of a company list, deleted from /scrape: the same', async () => {
		const me = await accountWithCredits(100)
		const listId = await insertCompanyList(me.accountId!, 5)
		const target = await enrichmentOf(me)
		const { start, remove } = await startThenDelete(
			(trx) => startRun(me, { listId, source: 'companies', target, payWith: 'credits' }, trx),
			() => deleteScrapeList(me, 'companies', listId),
		)
		expect(start.ok).toBe(true)
		expectRefused(remove, /An enrichment is running on this list/)
		expect(await listExists('company_scraping_list', listId)).toBe(true)
		expect(await orphanHolds(me.accountId!)).toBe(0)
	})

	test('a verification: the delete waits for the start and is refused', async () => {
		const me = await accountWithCredits(100)
		const listId = await insertLeadList(me.accountId!, 5)
		const { start, remove } = await startThenDelete(
			(trx) => startVerification(me, { listId, payWith: 'credits', only: 'all' }, trx),
			() => deleteLeadList(me, listId),
		)
		expect(start.ok).toBe(true)
		expectRefused(remove, /A verification is running on this list/)
		expect(await listExists('processing_list', listId)).toBe(true)
		expect(await orphanHolds(me.accountId!)).toBe(0)
	})

	test("a retry of a run's failed rows: the delete waits for it and is refused", async () => {
		const me = await accountWithCredits(100)
		const listId = await insertLeadList(me.accountId!, 5)
		const target = await enrichmentOf(me)
		const { runId } = await startRun(me, { listId, target, payWith: 'credits' })
		// the run ended with failed rows
		await db
			.updateTable('enrichment_runs')
			.set({ status: 3, prepared: true })
			.where('id', '=', runId)
			.execute()
		const { rows: leads } = await sql<{ id: string }>`
			select id from leads where list_id = ${listId}`.execute(db)
		await db
			.insertInto('enrichment_run_rows')
			.values(leads.map((l) => ({ run_id: runId, lead_id: l.id, status: 3 })))
			.execute()
		const { start, remove } = await startThenDelete(
			(trx) => retryFailedRows(me, runId, trx),
			() => deleteLeadList(me, listId),
		)
		expect(start.ok).toBe(true)
		expectRefused(remove, /An enrichment is running on this list/)
		expect(await orphanHolds(me.accountId!)).toBe(0)
	})
})

describe('a list deleted while a run starts on it', () => {
	test('an enrichment of a lead list gets the list’s 404, and holds no credits', async () => {
		const me = await accountWithCredits(100)
		const listId = await insertLeadList(me.accountId!, 5)
		const target = await enrichmentOf(me)
		const { remove, start } = await deleteThenStart('processing_list', listId, () =>
			startRun(me, { listId, target, payWith: 'credits' }),
		)
		expect(remove.ok).toBe(true)
		expectGone(start)
		expect(await orphanHolds(me.accountId!)).toBe(0)
	})

	test('an enrichment of a company list gets the list’s 404', async () => {
		const me = await accountWithCredits(100)
		const listId = await insertCompanyList(me.accountId!, 5)
		const target = await enrichmentOf(me)
		const { remove, start } = await deleteThenStart('company_scraping_list', listId, () =>
			startRun(me, { listId, source: 'companies', target, payWith: 'credits' }),
		)
		expect(remove.ok).toBe(true)
		expectGone(start)
	})

	test('a verification gets the list’s 404', async () => {
		const me = await accountWithCredits(100)
		const listId = await insertLeadList(me.accountId!, 5)
		const { remove, start } = await deleteThenStart('processing_list', listId, () =>
			startVerification(me, { listId, payWith: 'credits', only: 'all' }),
		)
		expect(remove.ok).toBe(true)
		expectGone(start)
		expect(await orphanHolds(me.accountId!)).toBe(0)
	})
})

describe('an EmailBison upload and its list’s delete', () => {
	async function uploader() {
		const me = await accountWithCredits(100)
		await saveEmailBisonSettings(me, { url: `${eb.url}/api/`, apiKey: eb.superAdminKey })
		const listId = await insertLeadList(me.accountId!, 5)
		const [workspace] = await listEbWorkspaces(me.accountId!)
		const upload = (verifyFirst: boolean) => ({
			workspace: workspace!.id,
			campaign: 'new',
			newCampaign: 'Race',
			fields: { email: 'email' },
			variables: [],
			...(verifyFirst ? { unverified: 'verify-first' as const } : {}),
		})
		return { me, listId, upload }
	}

	test('an upload starting: the delete waits for it and is refused', async () => {
		const { me, listId, upload } = await uploader()
		const { start, remove } = await startThenDelete(
			(trx) => startEmailBisonUpload(me, listId, upload(false), trx),
			() => deleteLeadList(me, listId),
		)
		expect(start.ok).toBe(true)
		expectRefused(remove, /This list is being uploaded to EmailBison/)
		expect(await listExists('processing_list', listId)).toBe(true)
	})

	test('an upload verifying first: the delete waits for both and is refused', async () => {
		const { me, listId, upload } = await uploader()
		const { start, remove } = await startThenDelete(
			(trx) => startEmailBisonUpload(me, listId, upload(true), trx),
			() => deleteLeadList(me, listId),
		)
		expect(start.ok).toBe(true)
		expectRefused(remove, /A verification is running on this list/)
		expect(await orphanHolds(me.accountId!)).toBe(0)
	})

	test('a list deleted while an upload starts: the list’s 404', async () => {
		const { me, listId, upload } = await uploader()
		const { remove, start } = await deleteThenStart('processing_list', listId, () =>
			startEmailBisonUpload(me, listId, upload(true)),
		)
		expect(remove.ok).toBe(true)
		expectGone(start)
		expect(await orphanHolds(me.accountId!)).toBe(0)
	})
})

describe("a scrape's retry and its list's delete", () => {
	/** A domain lookup that failed after 4 of its 10 domains, 10 credits held at its start. */
	async function failedLookup(accountId: string) {
		const list = await db
			.insertInto('company_scraping_list')
			.values({
				user_id: accountId,
				name: 'Lookup',
				source_type: 'domains',
				status: 3,
				requested: 10,
				items_read: 4,
				found: 4,
				credits_reserved: 10,
			})
			.returning('id')
			.executeTakeFirstOrThrow()
		return list.id
	}

	async function heldCredits(accountId: string) {
		const { rows } = await sql<{ n: number }>`
			select count(*)::int as n from credit_reservations
			where user_id = ${accountId} and status <> 'settled'`.execute(db)
		return rows[0]!.n
	}

	test('a retry starting: the delete waits, then stops it (its credits back) and deletes', async () => {
		const me = await accountWithCredits(100)
		const listId = await failedLookup(me.accountId!)
		const { start, remove } = await startThenDelete(
			(trx) => retryScrape(me, 'companies', listId, trx),
			() => deleteScrapeList(me, 'companies', listId),
		)
		// the delete's rule for a list still filling: cancelled first, then deleted
		expect(start.ok).toBe(true)
		expect(remove.ok).toBe(true)
		expect(await listExists('company_scraping_list', listId)).toBe(false)
		expect(await heldCredits(me.accountId!)).toBe(0)
	})

	test('a list deleted while a retry starts: the list’s 404', async () => {
		const me = await accountWithCredits(100)
		const listId = await failedLookup(me.accountId!)
		const { remove, start } = await deleteThenStart('company_scraping_list', listId, () =>
			retryScrape(me, 'companies', listId),
		)
		expect(remove.ok).toBe(true)
		expectGone(start)
		expect(await heldCredits(me.accountId!)).toBe(0)
	})
})

test('a delete sent twice at once: both answer deleted, the second finds nothing to do', async () => {
	const me = await accountWithCredits(0)
	const listId = await insertLeadList(me.accountId!, 3)
	const { remove, start: again } = await deleteThenStart('processing_list', listId, () =>
		deleteLeadList(me, listId),
	)
	expect(remove.ok).toBe(true)
	expect(again.ok).toBe(true)
	expect(await listExists('processing_list', listId)).toBe(false)
})
