import { sql, type Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { inTransaction } from '../../utils/transaction.server.ts'
import { recordCreditsChange } from '../webhooks/record.server.ts'

/**
 * The credits ledger. Every change appends a `credits` row and moves the
 * account's `credit_balances` row in the same transaction, under a row lock on
 * the balance, so the two always agree and the balance never goes below zero.
 * A change with a reference happens once per (account, reason, reference): the
 * ledger's unique index makes webhooks, retried jobs and double clicks safe.
 */

export type CreditReason = 'plan' | 'purchase' | 'reservation' | 'refund' | 'admin' | 'adjustment'

/** What the ledger shows for each reason. */
export const CREDIT_REASON_LABELS: Record<string, string> = {
	plan: 'Plan credits',
	purchase: 'Credit pack',
	reservation: 'Reserved for a job',
	refund: 'Unused credits returned',
	admin: 'Granted by an admin',
	adjustment: 'Adjustment',
}

/** Thrown by reserveCredits when the balance is short; nothing was written. */
export class InsufficientCreditsError extends Error {
	needed: number
	available: number
	constructor(needed: number, available: number) {
		super(
			`Not enough credits: ${needed.toLocaleString('en')} needed, ${available.toLocaleString('en')} available.`,
		)
		this.name = 'InsufficientCreditsError'
		this.needed = needed
		this.available = available
	}
}

/**
 * What a ledger line is for, in its own columns (decision 0083): the list, run, checkout or
 * subscription it links to, and an admin's note. A refund inherits its hold's.
 */
export type CreditSubject = {
	listId?: string | null
	companyListId?: string | null
	enrichmentRunId?: string | null
	verificationRunId?: string | null
	checkoutSessionId?: string | null
	subscriptionId?: string | null
	note?: string | null
}

export type CreditChange = {
	accountId: string
	delta: number
	reason: string
	reference?: string | null
	subject?: CreditSubject
}

function subjectColumns(subject: CreditSubject = {}) {
	return {
		list_id: subject.listId ?? null,
		company_list_id: subject.companyListId ?? null,
		enrichment_run_id: subject.enrichmentRunId ?? null,
		verification_run_id: subject.verificationRunId ?? null,
		checkout_session_id: subject.checkoutSessionId ?? null,
		subscription_id: subject.subscriptionId ?? null,
		note: subject.note ?? null,
	}
}

export type CreditChangeResult = {
	/** false when this (reason, reference) was already in the ledger: nothing changed */
	applied: boolean
	balance: number
}

/** Locks the account's balance row (made at 0 when missing) for this transaction. */
async function lockBalance(trx: Kysely<DB>, accountId: string) {
	await trx
		.insertInto('credit_balances')
		.values({ user_id: accountId, balance: 0 })
		.onConflict((oc) => oc.column('user_id').doNothing())
		.execute()
	const row = await trx
		.selectFrom('credit_balances')
		.select('balance')
		.where('user_id', '=', accountId)
		.forUpdate()
		.executeTakeFirstOrThrow()
	return row.balance
}

async function applyChange(trx: Kysely<DB>, change: CreditChange): Promise<CreditChangeResult> {
	const balance = await lockBalance(trx, change.accountId)
	if (change.reference) {
		const done = await trx
			.selectFrom('credits')
			.select('id')
			.where('user_id', '=', change.accountId)
			.where('reason', '=', change.reason)
			.where('reference', '=', change.reference)
			.executeTakeFirst()
		if (done) return { applied: false, balance }
	}
	const next = balance + change.delta
	if (next < 0) throw new InsufficientCreditsError(-change.delta, balance)
	await trx
		.updateTable('credit_balances')
		.set({ balance: next, updated_at: sql`now()` })
		.where('user_id', '=', change.accountId)
		.execute()
	await trx
		.insertInto('credits')
		.values({
			user_id: change.accountId,
			delta: change.delta,
			balance_after: next,
			reason: change.reason,
			reference: change.reference ?? null,
			...subjectColumns(change.subject),
			// clock_timestamp, not now(): entries of one transaction keep their order
			created_at: sql`clock_timestamp()`,
		})
		.execute()
	// credits.below_threshold when this change crosses the account's threshold (decision 0094)
	await recordCreditsChange(trx, { accountId: change.accountId, before: balance, after: next })
	return { applied: true, balance: next }
}

function assertAmount(amount: number) {
	if (!Number.isSafeInteger(amount) || amount <= 0) {
		throw new RangeError(`A credit amount is a positive whole number, not ${amount}`)
	}
}

/** Adds credits (plan periods, packs, admin grants). Idempotent per reference. */
export function grantCredits(
	db: Kysely<DB>,
	grant: {
		accountId: string
		amount: number
		reason: CreditReason
		reference?: string | null
		subject?: CreditSubject
	},
) {
	assertAmount(grant.amount)
	return inTransaction(db, (trx) => applyChange(trx, { ...grant, delta: grant.amount }))
}

/**
 * Takes credits away (an admin's correction). Throws InsufficientCreditsError,
 * writing nothing, when the balance would go below zero.
 */
export function deductCredits(
	db: Kysely<DB>,
	deduction: {
		accountId: string
		amount: number
		reason: CreditReason
		reference?: string | null
		subject?: CreditSubject
	},
) {
	assertAmount(deduction.amount)
	return inTransaction(db, (trx) => applyChange(trx, { ...deduction, delta: -deduction.amount }))
}

export type CreditReservation = {
	id: string
	reference: string
	amount: number
	status: string
	used: number | null
}

/**
 * Holds `amount` credits for a job (at enqueue): the balance drops now, and
 * commitCredits or releaseCredits settles the hold when the job ends. Throws
 * InsufficientCreditsError, writing nothing, when the balance is short. A
 * reference already reserved returns that reservation (a retried enqueue
 * reserves once).
 */
export function reserveCredits(
	db: Kysely<DB>,
	request: { accountId: string; amount: number; reference: string; subject?: CreditSubject },
): Promise<CreditReservation> {
	assertAmount(request.amount)
	return inTransaction(db, async (trx) => {
		await lockBalance(trx, request.accountId)
		const existing = await findReservation(trx, request.accountId, request.reference)
		if (existing) return existing
		await applyChange(trx, {
			accountId: request.accountId,
			delta: -request.amount,
			reason: 'reservation',
			reference: request.reference,
			subject: request.subject,
		})
		return trx
			.insertInto('credit_reservations')
			.values({
				user_id: request.accountId,
				reference: request.reference,
				reason: 'reservation',
				amount: request.amount,
			})
			.returning(['id', 'reference', 'amount', 'status', 'used'])
			.executeTakeFirstOrThrow()
	})
}

function findReservation(trx: Kysely<DB>, accountId: string, reference: string) {
	return trx
		.selectFrom('credit_reservations')
		.select(['id', 'reference', 'amount', 'status', 'used'])
		.where('user_id', '=', accountId)
		.where('reference', '=', reference)
		.forUpdate()
		.executeTakeFirst()
}

/**
 * Settles a reservation: `used` credits are spent, the rest goes back to the
 * balance (a 'refund' ledger row with the reservation's reference). Settling
 * twice changes nothing the second time.
 */
export function commitCredits(
	db: Kysely<DB>,
	settle: { accountId: string; reference: string; used: number },
): Promise<{ refunded: number; balance: number; alreadySettled: boolean }> {
	if (!Number.isSafeInteger(settle.used) || settle.used < 0) {
		throw new RangeError(`Used credits are a whole number of at least 0, not ${settle.used}`)
	}
	return inTransaction(db, async (trx) => {
		const balance = await lockBalance(trx, settle.accountId)
		const reservation = await findReservation(trx, settle.accountId, settle.reference)
		if (!reservation) throw new Error(`No credit reservation ${settle.reference}`)
		if (reservation.status === 'settled') return { refunded: 0, balance, alreadySettled: true }
		if (settle.used > reservation.amount) {
			throw new RangeError(
				`${settle.used} credits used is more than the ${reservation.amount} reserved`,
			)
		}
		const unused = reservation.amount - settle.used
		let after = balance
		if (unused > 0) {
			const result = await applyChange(trx, {
				accountId: settle.accountId,
				delta: unused,
				reason: 'refund',
				reference: settle.reference,
				// the refund is for what the hold was for
				subject: await holdSubject(trx, settle.accountId, settle.reference),
			})
			after = result.balance
		}
		await trx
			.updateTable('credit_reservations')
			.set({ status: 'settled', used: settle.used, settled_at: sql`now()` })
			.where('id', '=', reservation.id)
			.execute()
		return { refunded: unused, balance: after, alreadySettled: false }
	})
}

async function holdSubject(
	trx: Kysely<DB>,
	accountId: string,
	reference: string,
): Promise<CreditSubject> {
	const hold = await trx
		.selectFrom('credits')
		.select(['list_id', 'company_list_id', 'enrichment_run_id', 'verification_run_id'])
		.where('user_id', '=', accountId)
		.where('reason', '=', 'reservation')
		.where('reference', '=', reference)
		.executeTakeFirst()
	return {
		listId: hold?.list_id,
		companyListId: hold?.company_list_id,
		enrichmentRunId: hold?.enrichment_run_id,
		verificationRunId: hold?.verification_run_id,
	}
}

/** A job that failed or was cancelled: every reserved credit goes back. */
export function releaseCredits(db: Kysely<DB>, release: { accountId: string; reference: string }) {
	return commitCredits(db, { ...release, used: 0 })
}

export type CreditLedgerEntry = {
	id: string
	delta: number
	balance_after: number
	reason: string
	reference: string | null
	note: string | null
	created_at: Date
}

/** The newest ledger entries of an account, for the owner. */
export async function listCreditLedger(
	accountId: string,
	options: { limit?: number } = {},
	db: Kysely<DB> = defaultDb,
): Promise<CreditLedgerEntry[]> {
	return db
		.selectFrom('credits')
		.select(['id', 'delta', 'balance_after', 'reason', 'reference', 'note', 'created_at'])
		.where('user_id', '=', accountId)
		.orderBy('created_at', 'desc')
		.orderBy('id', 'desc')
		.limit(options.limit ?? 50)
		.execute()
}

export async function getCreditBalance(accountId: string, db: Kysely<DB> = defaultDb) {
	const row = await db
		.selectFrom('credit_balances')
		.select('balance')
		.where('user_id', '=', accountId)
		.executeTakeFirst()
	return row?.balance ?? 0
}
