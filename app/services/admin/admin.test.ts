import { sql } from 'kysely'
import { describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { loadAccountContext, type AccountContext } from '../../context.server.ts'
import { insertSubscription, insertUser } from '../../../tests/support/factories.ts'
import { auditActions, ledgerOf, newOwner, newTeamMember } from '../../../tests/support/billing.ts'
import { outcomeOf } from '../../../tests/support/team.ts'
import { grantCredits } from '../billing/credits.server.ts'
import { listAuditLog } from './audit.server.ts'
import { getServerHealth, readiness, runServerChecks } from './health.server.ts'
import { cancelJob, listProblemJobs, retryJob } from './jobs.server.ts'
import { listOfferedCreditPacks } from '../billing/credit-pack-prices.server.ts'
import { updateCreditPackPrice, updatePricePlan } from './plans.server.ts'
import {
	createGlobalTemplate,
	deleteGlobalTemplate,
	listGlobalTemplates,
	updateGlobalTemplate,
} from './url-templates.server.ts'
import {
	adjustCredits,
	cancelSubscriptionNow,
	extendSubscription,
	getUserOverview,
	removeTwoFactor,
	searchUsers,
	setBanned,
	setLtd,
	setPlatformRole,
} from './users.server.ts'

async function staff(role: 'admin' | 'editor') {
	const user = await insertUser(db)
	await db.insertInto('roles').values({ user_id: user.id, role }).execute()
	return loadAccountContext(db, user)
}

const TEMPLATE = 'https://app.apollo.io/#/people?personTitles[]={{title}}'
const UNKNOWN = '00000000-0000-4000-8000-000000000000'

async function personas() {
	const owner = await newOwner()
	const member = await newTeamMember(owner.user.id, 'admin')
	return {
		admin: await staff('admin'),
		editor: await staff('editor'),
		user: owner.account,
		member: member.account,
	}
}

/** Every action of the admin area, run as `account` against a fresh target. */
async function actions(account: AccountContext) {
	const target = await newOwner()
	await insertSubscription(db, target.user.id)
	const template = await db
		.insertInto('apollo_url_templates')
		.values({ user_id: null, name: 'Global', url: TEMPLATE })
		.returning('id')
		.executeTakeFirstOrThrow()
	const id = target.user.id
	return {
		search: () => searchUsers(account, undefined),
		overview: () => getUserOverview(account, id),
		jobs: () => listProblemJobs(account),
		health: () => getServerHealth(account),
		audit: () => listAuditLog(account, {}),
		templates: () => listGlobalTemplates(account),
		grant: () => adjustCredits(account, id, { direction: 'grant', amount: 5, note: 'goodwill' }),
		ltd: () => setLtd(account, id, true),
		role: () => setPlatformRole(account, id, 'editor'),
		extend: () => extendSubscription(account, id, { planId: 1, days: 30 }),
		cancel: () => cancelSubscriptionNow(account, id),
		ban: () => setBanned(account, id, true),
		removeTwoFactor: () => removeTwoFactor(account, id),
		plan: () => updatePricePlan(account, { planId: 1, priceCents: 4900, monthlyCredits: 1000 }),
		pack: () => updateCreditPackPrice(account, { credits: 1000, priceCents: 1900 }),
		createTemplate: () => createGlobalTemplate(account, { name: 'New', url: TEMPLATE }),
		updateTemplate: () =>
			updateGlobalTemplate(account, template.id, { name: 'Renamed', url: TEMPLATE }),
		deleteTemplate: () => deleteGlobalTemplate(account, template.id),
	}
}

const READS = ['search', 'overview', 'jobs', 'health', 'audit', 'templates']

describe('the admin role matrix', () => {
	test.each(['admin', 'editor', 'user', 'member'] as const)('%s', async (persona) => {
		const accounts = await personas()
		const all = await actions(accounts[persona])
		const outcomes: Record<string, unknown> = {}
		for (const [name, run] of Object.entries(all)) outcomes[name] = await outcomeOf(run)
		const expected = Object.fromEntries(
			Object.keys(all).map((name) => [
				name,
				persona === 'admin' ? 'ok' : persona === 'editor' && READS.includes(name) ? 'ok' : 403,
			]),
		)
		expect(outcomes).toEqual(expected)
	})
})

describe('user actions', () => {
	test('grants and deductions move the ledger and are audited; never below zero', async () => {
		const { admin } = await personas()
		const target = await newOwner()
		const id = target.user.id
		await adjustCredits(admin, id, { direction: 'grant', amount: 100, note: 'goodwill' })
		await adjustCredits(admin, id, { direction: 'deduct', amount: 40, note: 'correction' })
		expect(
			await outcomeOf(() =>
				adjustCredits(admin, id, { direction: 'deduct', amount: 61, note: 'too much' }),
			),
		).toBe('form')
		for (const amount of [0, -5, 1.5, Number.NaN]) {
			expect(
				await outcomeOf(() =>
					adjustCredits(admin, id, { direction: 'grant', amount, note: 'x y z' }),
				),
			).toBe('form')
		}
		const { entries, balance } = await ledgerOf(id)
		expect(balance).toBe(60)
		expect(entries.map((e) => [e.delta, e.reason])).toEqual([
			[100, 'admin'],
			[-40, 'admin'],
		])
		const audit = await auditActions(id)
		expect(audit.map((a) => [a.action, a.actor_user_id, a.before, a.after])).toEqual([
			[
				'admin.credits.grant',
				admin.user.id,
				{ balance: 0 },
				{ balance: 100, amount: 100, note: 'goodwill' },
			],
			[
				'admin.credits.deduct',
				admin.user.id,
				{ balance: 100 },
				{ balance: 60, amount: 40, note: 'correction' },
			],
		])
	})

	test("a team member's credits are its owner's", async () => {
		const { admin } = await personas()
		const owner = await newOwner()
		const member = await newTeamMember(owner.user.id, 'editor')
		await adjustCredits(admin, member.user.id, { direction: 'grant', amount: 7, note: 'for team' })
		expect((await ledgerOf(owner.user.id)).balance).toBe(7)
		const overview = await getUserOverview(admin, member.user.id)
		expect(overview.user.accountId).toBe(owner.user.id)
		expect(overview.balance).toBe(7)
	})

	test('unknown users are 404 for every action', async () => {
		const { admin } = await personas()
		for (const id of [UNKNOWN, 'not-a-uuid']) {
			expect(await outcomeOf(() => getUserOverview(admin, id))).toBe(404)
			expect(
				await outcomeOf(() =>
					adjustCredits(admin, id, { direction: 'grant', amount: 1, note: 'x y z' }),
				),
			).toBe(404)
			expect(await outcomeOf(() => setLtd(admin, id, true))).toBe(404)
			expect(await outcomeOf(() => setPlatformRole(admin, id, 'admin'))).toBe(404)
			expect(await outcomeOf(() => extendSubscription(admin, id, { planId: 1, days: 1 }))).toBe(404)
			expect(await outcomeOf(() => cancelSubscriptionNow(admin, id))).toBe(404)
			expect(await outcomeOf(() => setBanned(admin, id, true))).toBe(404)
		}
	})

	test('LTD, role, subscription and ban each leave an audit row with before and after', async () => {
		const { admin } = await personas()
		const target = await newOwner()
		const id = target.user.id
		await setLtd(admin, id, true)
		await setPlatformRole(admin, id, 'editor')
		await setPlatformRole(admin, id, 'none')
		const granted = await extendSubscription(admin, id, { planId: 2, days: 10 })
		const extended = await extendSubscription(admin, id, { planId: 2, days: 5 })
		expect(extended.expire_date!.getTime() - granted.expire_date!.getTime()).toBe(5 * 86_400_000)
		await cancelSubscriptionNow(admin, id)
		await setBanned(admin, id, true)
		const banned = await db
			.selectFrom('auth.users')
			.select('banned_until')
			.where('id', '=', id)
			.executeTakeFirstOrThrow()
		expect(banned.banned_until!.getTime()).toBeGreaterThan(Date.now() + 365 * 86_400_000)
		await setBanned(admin, id, false)
		const context = await loadAccountContext(db, target.user)
		expect(context.isLTD).toBe(true)
		expect(context.platformRole).toBe(null)
		expect(context.activePlan).toBe(0)
		const userAudit = (await auditActions(id)).map((a) => [a.action, a.before, a.after])
		expect(userAudit).toEqual([
			['admin.user.ltd', { is_ltd: false }, { is_ltd: true }],
			['admin.user.role', { role: null }, { role: 'editor' }],
			['admin.user.role', { role: 'editor' }, { role: null }],
			['admin.user.ban', { banned_until: null }, { banned_until: expect.any(String) }],
			['admin.user.unban', { banned_until: expect.any(String) }, { banned_until: null }],
		])
		const subAudit = (await auditActions(granted.id)).map((a) => a.action)
		expect(subAudit).toEqual([
			'admin.subscription.grant',
			'admin.subscription.extend',
			'admin.subscription.cancel',
		])
	})

	test('removing a user’s two-factor authentication (lost authenticator) is audited', async () => {
		const { admin } = await personas()
		const target = await newOwner()
		const factorId = crypto.randomUUID()
		await db
			.insertInto('auth.mfa_factors')
			.values({
				id: factorId,
				user_id: target.user.id,
				friendly_name: '',
				factor_type: 'totp',
				status: 'verified',
				created_at: new Date(),
				updated_at: new Date(),
			})
			.execute()
		expect((await loadAccountContext(db, target.user)).twoFactorEnabled).toBe(true)
		expect(await removeTwoFactor(admin, target.user.id)).toBe(1)
		expect((await loadAccountContext(db, target.user)).twoFactorEnabled).toBe(false)
		expect((await auditActions(target.user.id)).map((a) => [a.action, a.before, a.after])).toEqual([
			['admin.user.remove_two_factor', { factors: [factorId] }, { factors: [] }],
		])
	})

	test('search finds users by part of their email', async () => {
		const { admin } = await personas()
		const target = await insertUser(db, { email: `findme-${Date.now()}@example.com` })
		const found = await searchUsers(admin, 'FINDME-')
		expect(found.map((u) => u.id)).toContain(target.id)
		expect(await searchUsers(admin, '%')).toEqual([])
	})

	test('an admin cannot demote or ban themself', async () => {
		const { admin } = await personas()
		expect(await outcomeOf(() => setPlatformRole(admin, admin.user.id, 'editor'))).toBe('form')
		expect(await outcomeOf(() => setBanned(admin, admin.user.id, true))).toBe('form')
	})
})

describe('plans, templates, jobs and health', () => {
	test('a new price clears stripe_price_id; credits alone keep it', async () => {
		const { admin } = await personas()
		await db
			.updateTable('price_plans')
			.set({ stripe_price_id: 'price_old' })
			.where('id', '=', 3)
			.execute()
		const plan = await db
			.selectFrom('price_plans')
			.selectAll()
			.where('id', '=', 3)
			.executeTakeFirstOrThrow()
		const same = await updatePricePlan(admin, {
			planId: 3,
			priceCents: plan.price_cents,
			monthlyCredits: plan.monthly_credits + 1,
		})
		expect(same.stripe_price_id).toBe('price_old')
		const changed = await updatePricePlan(admin, {
			planId: 3,
			priceCents: plan.price_cents + 100,
			monthlyCredits: plan.monthly_credits,
		})
		expect(changed.stripe_price_id).toBe(null)
		expect((await auditActions('3')).map((a) => a.action)).toEqual([
			'admin.plan.update',
			'admin.plan.update',
		])
	})

	test('a credit pack price applies to the packs on offer; unknown packs are refused', async () => {
		const { admin } = await personas()
		const [first] = await listOfferedCreditPacks()
		await updateCreditPackPrice(admin, { credits: first!.credits, priceCents: 1234 })
		const [after] = await listOfferedCreditPacks()
		expect(after).toEqual({
			credits: first!.credits,
			priceCents: 1234,
			defaultPriceCents: first!.defaultPriceCents,
		})
		expect(await outcomeOf(() => updateCreditPackPrice(admin, { credits: 7, priceCents: 1 }))).toBe(
			'form',
		)
		expect((await auditActions(String(first!.credits))).map((a) => a.after)).toContainEqual({
			price_cents: 1234,
		})
	})

	test('global templates: bad addresses are refused, the rest audited', async () => {
		const { admin } = await personas()
		expect(
			await outcomeOf(() => createGlobalTemplate(admin, { name: 'x', url: 'https://evil.test/' })),
		).toBe('form')
		expect(
			await outcomeOf(() =>
				createGlobalTemplate(admin, { name: 'x', url: 'https://app.apollo.io/#/people' }),
			),
		).toBe('form')
		const created = await createGlobalTemplate(admin, { name: 'CEOs', url: TEMPLATE })
		await updateGlobalTemplate(admin, created.id, { name: 'Chiefs', url: TEMPLATE })
		await deleteGlobalTemplate(admin, created.id)
		expect(await outcomeOf(() => deleteGlobalTemplate(admin, created.id))).toBe(404)
		const own = await newOwner()
		const personal = await db
			.insertInto('apollo_url_templates')
			.values({ user_id: own.user.id, name: 'mine', url: TEMPLATE })
			.returning('id')
			.executeTakeFirstOrThrow()
		expect(await outcomeOf(() => deleteGlobalTemplate(admin, personal.id))).toBe(404)
		expect((await auditActions(created.id)).map((a) => a.action)).toEqual([
			'admin.template.create',
			'admin.template.update',
			'admin.template.delete',
		])
	})

	test('failed and stuck jobs are listed with their errors; retry and cancel are audited', async () => {
		const { admin, editor } = await personas()
		const { ensureQueue, getBoss } = await import('../../jobs/boss.server.ts')
		const boss = await getBoss()
		await ensureQueue(boss, 'dns-check')
		const failedId = await boss.send('dns-check', { domainIds: [UNKNOWN] })
		const stuckId = await boss.send('dns-check', { domainIds: [UNKNOWN] })
		await sql`update pgboss.job set state = 'failed', completed_on = now(),
			output = '{"message":"resolver exploded"}' where id = ${failedId}`.execute(db)
		await sql`update pgboss.job set state = 'active', started_on = now() - interval '2 hours'
			where id = ${stuckId}`.execute(db)
		const jobs = await listProblemJobs(admin)
		expect(jobs.find((j) => j.id === failedId)).toMatchObject({
			queue: 'dns-check',
			problem: 'failed',
			error: 'resolver exploded',
		})
		expect(jobs.find((j) => j.id === stuckId)).toMatchObject({ problem: 'stuck' })
		expect(await outcomeOf(() => retryJob(editor, 'dns-check', failedId!))).toBe(403)
		expect(await outcomeOf(() => cancelJob(editor, 'dns-check', stuckId!))).toBe(403)
		expect(await outcomeOf(() => retryJob(admin, 'dns-check', stuckId!))).toBe('form')
		expect(await outcomeOf(() => retryJob(admin, 'dns-check', UNKNOWN))).toBe(404)
		await retryJob(admin, 'dns-check', failedId!)
		await cancelJob(admin, 'dns-check', stuckId!)
		const { rows } = await sql<{ id: string; state: string }>`
			select id, state from pgboss.job where id in (${failedId}, ${stuckId})`.execute(db)
		expect(Object.fromEntries(rows.map((r) => [r.id, r.state]))).toEqual({
			[failedId!]: 'retry',
			[stuckId!]: 'cancelled',
		})
		expect((await auditActions(failedId!)).map((a) => a.action)).toEqual(['admin.job.retry'])
		expect((await auditActions(stuckId!)).map((a) => a.action)).toEqual(['admin.job.cancel'])
	})

	test("an admin's cancel of a CSV import ends its list as Cancelled, once", async () => {
		const { admin } = await personas()
		const owner = await newOwner()
		const list = await db
			.insertInto('processing_list')
			.values({ user_id: owner.user.id, name: 'Import', source_type: 'upload', status: 1 })
			.returning('id')
			.executeTakeFirstOrThrow()
		const { ensureQueue, getBoss } = await import('../../jobs/boss.server.ts')
		const boss = await getBoss()
		await ensureQueue(boss, 'csv-import')
		const jobId = await boss.send('csv-import', { listId: list.id })
		await sql`update pgboss.job set state = 'active', started_on = now() - interval '2 hours'
			where id = ${jobId}`.execute(db)
		await cancelJob(admin, 'csv-import', jobId!)
		const after = await db
			.selectFrom('processing_list')
			.select(['status', 'error'])
			.where('id', '=', list.id)
			.executeTakeFirstOrThrow()
		expect(after).toEqual({ status: 3, error: 'Cancelled' })
	})

	test('server checks are stored and summarised; readiness needs the database and queue', async () => {
		const { admin } = await personas()
		const results = await runServerChecks()
		expect(results.map((r) => r.service)).toEqual(expect.arrayContaining(['database', 'queue']))
		expect(results.every((r) => r.ok)).toBe(true)
		const health = await getServerHealth(admin)
		expect(health.latest.map((r) => r.service)).toEqual(
			expect.arrayContaining(['database', 'queue']),
		)
		expect(health.day.find((d) => d.service === 'database')?.checks).toBeGreaterThan(0)
		expect((await readiness()).ok).toBe(true)
	})

	test('the audit log filters by action, actor and target', async () => {
		const { admin } = await personas()
		const target = await newOwner()
		await setLtd(admin, target.user.id, true)
		await grantCredits(db, { accountId: target.user.id, amount: 1, reason: 'admin' })
		const byTarget = await listAuditLog(admin, { target: target.user.id })
		expect(byTarget.map((r) => r.action)).toEqual(['admin.user.ltd'])
		expect(byTarget[0]!.actor_email).toBe(admin.user.email)
		const byActor = await listAuditLog(admin, { actor: admin.user.email, action: 'admin.user' })
		expect(byActor.map((r) => r.target_id)).toContain(target.user.id)
		expect(await listAuditLog(admin, { action: 'no.such.action' })).toEqual([])
	})
})
