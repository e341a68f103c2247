import { expect } from 'vitest'
import { db } from '../../db/index.server.ts'
import { resetSingleton } from '../../app/utils/singleton.server.ts'
import {
	startFakeMillionVerifier,
	type FakeMillionVerifier,
} from '../fakes/millionverifier/server.ts'
import { startFakeReacher, type FakeReacher } from '../fakes/reacher/server.ts'
import { startFakeZeroBounce, type FakeZeroBounce } from '../fakes/zerobounce/server.ts'

export type VerifyFakes = { mv: FakeMillionVerifier; zb: FakeZeroBounce; reacher: FakeReacher }

/** The three providers' fakes, with the platform keys and base URLs pointed at them. */
export async function startVerifyFakes(): Promise<VerifyFakes> {
	const [mv, zb, reacher] = await Promise.all([
		startFakeMillionVerifier(),
		startFakeZeroBounce(),
		startFakeReacher(),
	])
	Object.assign(process.env, verifyEnv({ mv, zb, reacher }))
	resetSingleton('config')
	return { mv, zb, reacher }
}

/** The configuration that points the app at the fakes (also for a server process). */
export function verifyEnv({ mv, zb, reacher }: VerifyFakes) {
	return {
		VERIFY_PROVIDER: 'millionverifier',
		MILLIONVERIFIER_BASE_URL: mv.url,
		MILLIONVERIFIER_BULK_URL: mv.bulkUrl,
		MILLIONVERIFIER_API_KEY: mv.apiKey,
		ZEROBOUNCE_BASE_URL: zb.url,
		ZEROBOUNCE_BULK_URL: zb.bulkUrl,
		ZEROBOUNCE_API_KEY: zb.apiKey,
		REACHER_BASE_URL: reacher.url,
		REACHER_API_KEY: reacher.apiKey,
		CREDITS_PER_VERIFICATION: '1',
		MILLIONVERIFIER_RATE_PER_SECOND: '1000',
		ZEROBOUNCE_BATCH_PER_MINUTE: '6000',
		REACHER_RATE_PER_SECOND: '1000',
	}
}

/** A lead list of these emails (one lead each). */
export async function insertEmails(accountId: string, emails: string[], name = 'List') {
	const list = await db
		.insertInto('processing_list')
		.values({ user_id: accountId, name, source_type: 'upload', status: 2, found: emails.length })
		.returning('id')
		.executeTakeFirstOrThrow()
	if (emails.length)
		await db
			.insertInto('leads')
			.values(
				emails.map((email, i) => ({
					list_id: list.id,
					user_id: accountId,
					email,
					first_name: `First${i}`,
				})),
			)
			.execute()
	return list.id
}

/** Waits for a verification run to end; returns it. */
export async function settledVerification(runId: string, timeout = 20_000) {
	await expect
		.poll(
			async () =>
				(
					await db
						.selectFrom('verification_runs')
						.select('status')
						.where('id', '=', runId)
						.executeTakeFirstOrThrow()
				).status,
			{ timeout, interval: 100 },
		)
		.toBeGreaterThanOrEqual(2)
	return db
		.selectFrom('verification_runs')
		.selectAll()
		.where('id', '=', runId)
		.executeTakeFirstOrThrow()
}

/** Each lead's email and our status, by email. */
export async function statusesOf(listId: string) {
	const rows = await db
		.selectFrom('leads')
		.select(['email', 'verify_status', 'verify_role', 'verify_raw', 'verified_at', 'email_status'])
		.where('list_id', '=', listId)
		.execute()
	return new Map(rows.map((r) => [r.email, r]))
}
