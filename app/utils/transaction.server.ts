import type { Kysely, Transaction } from 'kysely'
import type { DB } from '../../db/schema.ts'

/**
 * Runs `work` in `executor`'s transaction when it is one (a caller's work and this one commit or
 * roll back together), else in a new transaction of its own. Kysely cannot open a transaction
 * inside another, so a service that may be called either way writes through this. No retry (nor
 * did the two helpers it replaces, decision 0075): a job that loses a deadlock is retried as a
 * job (app/jobs/define.server.ts).
 */
export function inTransaction<T>(
	executor: Kysely<DB>,
	work: (trx: Transaction<DB>) => Promise<T>,
): Promise<T> {
	return executor.isTransaction
		? work(executor as Transaction<DB>)
		: executor.transaction().execute(work)
}
