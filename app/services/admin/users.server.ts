import { sql, type Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { FormError, isUuid, notFound } from '../../utils/http-errors.server.ts'
import { recordAudit } from '../audit/audit-log.server.ts'
import { getAuthAdmin } from '../auth/endpoint.server.ts'
import {
	deductCredits,
	getCreditBalance,
	grantCredits,
	InsufficientCreditsError,
	listCreditLedger,
} from '../billing/credits.server.ts'
import { getPricePlan } from '../billing/plans.server.ts'
import { changeSubscription, findCurrentSubscription } from '../billing/subscriptions.server.ts'
import { assertPlatformAdmin, assertStaff } from './access.server.ts'

/** Far enough ahead to mean "until unbanned" (the auth service's ban_duration). */
export const BAN_DURATION = '876000h'

export type UserRow = {
	id: string
	email: string | null
	created_at: Date | null
	banned_until: Date | null
	is_ltd: boolean | null
	primary_user_id: string | null
	role: string | null
	balance: number | null
}

/** Users whose email contains `q` (newest first), for the users section. */
export async function searchUsers(
	account: AccountContext | null,
	q: string | undefined,
	db: Kysely<DB> = defaultDb,
): Promise<UserRow[]> {
	assertStaff(account)
	let query = db
		.selectFrom('auth.users as u')
		.leftJoin('profiles as p', 'p.user_id', 'u.id')
		.leftJoin('credit_balances as b', 'b.user_id', 'u.id')
		.select((eb) => [
			'u.id',
			'u.email',
			'u.created_at',
			'u.banned_until',
			'p.is_ltd',
			'p.primary_user_id',
			'b.balance',
			eb
				.selectFrom('roles')
				.select('role')
				.whereRef('roles.user_id', '=', 'u.id')
				.orderBy('roles.created_at')
				.orderBy('roles.id')
				.limit(1)
				.as('role'),
		])
		.orderBy('u.created_at', 'desc')
		.limit(50)
	if (q) {
		const escaped = q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)
		query = query.where(sql<boolean>`lower(u.email) like ${`%${escaped}%`}`)
	}
	return query.execute()
}

async function findUser(db: Kysely<DB>, userId: string) {
	if (!isUuid(userId)) notFound('This user')
	const user = await db
		.selectFrom('auth.users as u')
		.leftJoin('profiles as p', 'p.user_id', 'u.id')
		.select([
			'u.id',
			'u.email',
			'u.created_at',
			'u.banned_until',
			'u.last_sign_in_at',
			'p.is_ltd',
			'p.primary_user_id',
			'p.full_name',
			'p.company',
		])
		.select((eb) =>
			eb
				.selectFrom('auth.mfa_factors as f')
				.select(eb.fn.countAll<string>().as('n'))
				.whereRef('f.user_id', '=', 'u.id')
				.as('two_factor_factors'),
		)
		.where('u.id', '=', userId)
		.executeTakeFirst()
	return user ?? notFound('This user')
}

async function platformRoleOf(db: Kysely<DB>, userId: string) {
	const row = await db
		.selectFrom('roles')
		.select('role')
		.where('user_id', '=', userId)
		.orderBy('created_at')
		.orderBy('id')
		.executeTakeFirst()
	return (row?.role ?? null) as 'admin' | 'editor' | null
}

/** Everything the users section shows about one account. */
export async function getUserOverview(
	account: AccountContext | null,
	userId: string,
	db: Kysely<DB> = defaultDb,
) {
	assertStaff(account)
	const user = await findUser(db, userId)
	const accountId = user.primary_user_id ?? user.id
	const [role, subscription, balance, ledger, team, workspaces, counts, plans] = await Promise.all([
		platformRoleOf(db, user.id),
		findCurrentSubscription(accountId, db),
		getCreditBalance(accountId, db),
		listCreditLedger(accountId, { limit: 20 }, db),
		db
			.selectFrom('team_members')
			.select(['id', 'email', 'role', 'status'])
			.where('user_id', '=', accountId)
			.orderBy('created_at')
			.execute(),
		db
			.selectFrom('workspaces')
			.select(['id', 'name'])
			.where('user_id', '=', accountId)
			.orderBy('name')
			.execute(),
		db
			.selectNoFrom((eb) => [
				eb
					.selectFrom('processing_list')
					.select(eb.fn.countAll<string>().as('n'))
					.where('user_id', '=', accountId)
					.as('leadLists'),
				eb
					.selectFrom('company_scraping_list')
					.select(eb.fn.countAll<string>().as('n'))
					.where('user_id', '=', accountId)
					.as('companyLists'),
				eb
					.selectFrom('domains')
					.select(eb.fn.countAll<string>().as('n'))
					.where('user_id', '=', accountId)
					.as('domains'),
			])
			.executeTakeFirstOrThrow(),
		db.selectFrom('price_plans').select(['id', 'name']).orderBy('id').execute(),
	])
	return {
		user: { ...user, role, accountId, isTeamMember: accountId !== user.id },
		subscription: subscription ?? null,
		plan: subscription ? (plans.find((p) => p.id === subscription.active_plan) ?? null) : null,
		plans,
		balance,
		ledger,
		team,
		workspaces,
		counts: {
			lists: Number(counts.leadLists ?? 0) + Number(counts.companyLists ?? 0),
			domains: Number(counts.domains ?? 0),
		},
	}
}

/** Grants or deducts credits on the user's account (its owner's for a team member). */
export async function adjustCredits(
	account: AccountContext | null,
	userId: string,
	change: { direction: 'grant' | 'deduct'; amount: number; note: string },
	db: Kysely<DB> = defaultDb,
) {
	const admin = assertPlatformAdmin(account)
	if (!Number.isSafeInteger(change.amount) || change.amount <= 0) {
		throw new FormError('An amount is a whole number of at least 1.', 'amount')
	}
	const user = await findUser(db, userId)
	const accountId = user.primary_user_id ?? user.id
	try {
		return await db.transaction().execute(async (trx) => {
			const before = await getCreditBalance(accountId, trx)
			// the note is shown with the line in the owner's credit history
			const move = {
				accountId,
				amount: change.amount,
				reason: 'admin' as const,
				subject: { note: change.note },
			}
			const result =
				change.direction === 'grant'
					? await grantCredits(trx, move)
					: await deductCredits(trx, move)
			await recordAudit(trx, {
				actorUserId: admin.user.id,
				action: `admin.credits.${change.direction}`,
				targetType: 'account',
				targetId: accountId,
				before: { balance: before },
				after: { balance: result.balance, amount: change.amount, note: change.note },
			})
			return result
		})
	} catch (error) {
		if (error instanceof InsufficientCreditsError) {
			throw new FormError(
				`The balance is ${error.available.toLocaleString('en')}; it cannot go below zero.`,
				'amount',
			)
		}
		throw error
	}
}

export async function setLtd(
	account: AccountContext | null,
	userId: string,
	isLtd: boolean,
	db: Kysely<DB> = defaultDb,
) {
	const admin = assertPlatformAdmin(account)
	const user = await findUser(db, userId)
	await db.transaction().execute(async (trx) => {
		await trx
			.insertInto('profiles')
			.values({ user_id: user.id, is_ltd: isLtd })
			.onConflict((oc) =>
				oc.column('user_id').doUpdateSet({ is_ltd: isLtd, updated_at: new Date() }),
			)
			.execute()
		await recordAudit(trx, {
			actorUserId: admin.user.id,
			action: 'admin.user.ltd',
			targetType: 'user',
			targetId: user.id,
			before: { is_ltd: user.is_ltd ?? false },
			after: { is_ltd: isLtd },
		})
	})
}

/** Sets the one platform role (admin, editor) or removes it ('none'). */
export async function setPlatformRole(
	account: AccountContext | null,
	userId: string,
	role: 'admin' | 'editor' | 'none',
	db: Kysely<DB> = defaultDb,
) {
	const admin = assertPlatformAdmin(account)
	const user = await findUser(db, userId)
	if (user.id === admin.user.id && role !== 'admin') {
		throw new FormError('You cannot take away your own admin role.', 'role')
	}
	await db.transaction().execute(async (trx) => {
		const before = await platformRoleOf(trx, user.id)
		await trx.deleteFrom('roles').where('user_id', '=', user.id).execute()
		if (role !== 'none') await trx.insertInto('roles').values({ user_id: user.id, role }).execute()
		await recordAudit(trx, {
			actorUserId: admin.user.id,
			action: 'admin.user.role',
			targetType: 'user',
			targetId: user.id,
			before: { role: before },
			after: { role: role === 'none' ? null : role },
		})
	})
}

/**
 * Extends the account's current subscription by `days` (from its expire_date, or from now
 * when it has ended); an account without one gets an admin-granted subscription to `planId`.
 */
export async function extendSubscription(
	account: AccountContext | null,
	userId: string,
	input: { planId: number; days: number },
	db: Kysely<DB> = defaultDb,
) {
	const admin = assertPlatformAdmin(account)
	const user = await findUser(db, userId)
	const accountId = user.primary_user_id ?? user.id
	const plan = await getPricePlan(input.planId, db)
	if (!plan) throw new FormError('Choose one of the plans.', 'plan')
	return db.transaction().execute(async (trx) => {
		const sub = await findCurrentSubscription(accountId, trx)
		const now = new Date()
		if (sub) {
			const from = sub.expire_date && sub.expire_date > now ? sub.expire_date : now
			return changeSubscription(
				trx,
				sub,
				{
					status: 'active',
					expire_date: new Date(from.getTime() + input.days * 86_400_000),
					cancel_at_period_end: false,
				},
				{
					action: 'admin.subscription.extend',
					actorUserId: admin.user.id,
					detail: { days: input.days },
				},
			)
		}
		const created = await trx
			.insertInto('subscriptions')
			.values({
				user_id: accountId,
				active_plan: plan.id,
				status: 'active',
				billing_date: now,
				expire_date: new Date(now.getTime() + input.days * 86_400_000),
				provider: 'admin',
				credits_next_grant_at: null,
			})
			.returningAll()
			.executeTakeFirstOrThrow()
		await recordAudit(trx, {
			actorUserId: admin.user.id,
			action: 'admin.subscription.grant',
			targetType: 'subscription',
			targetId: created.id,
			before: null,
			after: {
				active_plan: plan.id,
				status: 'active',
				expire_date: created.expire_date,
				days: input.days,
			},
		})
		return created
	})
}

/** Ends the account's subscription now (no refund; Stripe billing is the provider's to stop). */
export async function cancelSubscriptionNow(
	account: AccountContext | null,
	userId: string,
	db: Kysely<DB> = defaultDb,
) {
	const admin = assertPlatformAdmin(account)
	const user = await findUser(db, userId)
	const accountId = user.primary_user_id ?? user.id
	return db.transaction().execute(async (trx) => {
		const sub = await findCurrentSubscription(accountId, trx)
		if (!sub) throw new FormError('This account has no subscription to cancel.')
		const now = new Date()
		return changeSubscription(
			trx,
			sub,
			{ status: 'canceled', canceled_at: now, expire_date: now, credits_next_grant_at: null },
			{ action: 'admin.subscription.cancel', actorUserId: admin.user.id },
		)
	})
}

/** Bans (or unbans) sign-in through the auth service; refresh tokens stop working. */
/**
 * Recovery for a user who lost their authenticator: removes every TOTP factor through the auth
 * service's admin API (their sessions drop to aal1), audited. They sign in with the password alone
 * and may set two-factor up again.
 */
export async function removeTwoFactor(
	account: AccountContext | null,
	userId: string,
	db: Kysely<DB> = defaultDb,
) {
	const admin = assertPlatformAdmin(account)
	const user = await findUser(db, userId)
	const auth = await getAuthAdmin()
	const { data, error } = await auth.mfa.listFactors({ userId: user.id })
	if (error) throw new FormError(`The auth service refused: ${error.message}`)
	const removed: string[] = []
	for (const factor of data.factors) {
		const deleted = await auth.mfa.deleteFactor({ userId: user.id, id: factor.id })
		if (deleted.error) throw new FormError(`The auth service refused: ${deleted.error.message}`)
		removed.push(factor.id)
	}
	await recordAudit(db, {
		actorUserId: admin.user.id,
		action: 'admin.user.remove_two_factor',
		targetType: 'user',
		targetId: user.id,
		before: { factors: removed },
		after: { factors: [] },
	})
	return removed.length
}

export async function setBanned(
	account: AccountContext | null,
	userId: string,
	banned: boolean,
	db: Kysely<DB> = defaultDb,
) {
	const admin = assertPlatformAdmin(account)
	const user = await findUser(db, userId)
	if (banned && user.id === admin.user.id) throw new FormError('You cannot ban yourself.')
	const auth = await getAuthAdmin()
	const { error } = await auth.updateUserById(user.id, {
		ban_duration: banned ? BAN_DURATION : 'none',
	})
	if (error) throw new FormError(`The auth service refused: ${error.message}`)
	const after = await findUser(db, userId)
	await recordAudit(db, {
		actorUserId: admin.user.id,
		action: banned ? 'admin.user.ban' : 'admin.user.unban',
		targetType: 'user',
		targetId: user.id,
		before: { banned_until: user.banned_until },
		after: { banned_until: after.banned_until },
	})
}
