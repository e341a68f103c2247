import { describe, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { insertUser } from '../../tests/support/factories.ts'
import { inTransaction } from './transaction.server.ts'

// The one transaction helper (decision 0075): a service's writes commit or roll back together,
// and with its caller's when the caller already holds a transaction.

const workspacesOf = async (userId: string) =>
	(
		await db
			.selectFrom('workspaces')
			.select('name')
			.where('user_id', '=', userId)
			.orderBy('name')
			.execute()
	).map((w) => w.name)

const addWorkspace = (executor: typeof db, userId: string, name: string) =>
	inTransaction(executor, async (trx) => {
		await trx.insertInto('workspaces').values({ user_id: userId, name }).execute()
		// a second write of the same work: both or neither
		await trx
			.insertInto('workspaces')
			.values({ user_id: userId, name: `${name} 2` })
			.execute()
	})

describe('inTransaction', () => {
	test('alone, its writes commit together, and a failure keeps none of them', async () => {
		const user = await insertUser(db)
		await addWorkspace(db, user.id, 'Kept')
		expect(await workspacesOf(user.id)).toEqual(['Kept', 'Kept 2'])
		await expect(
			inTransaction(db, async (trx) => {
				await trx.insertInto('workspaces').values({ user_id: user.id, name: 'Lost' }).execute()
				throw new Error('the second step failed')
			}),
		).rejects.toThrow('the second step failed')
		expect(await workspacesOf(user.id)).toEqual(['Kept', 'Kept 2'])
	})

	test("inside a caller's transaction it joins it: the caller's rollback undoes its writes too", async () => {
		const user = await insertUser(db)
		await expect(
			db.transaction().execute(async (trx) => {
				await addWorkspace(trx, user.id, 'Inner')
				// seen inside the caller's transaction
				expect(
					await trx
						.selectFrom('workspaces')
						.select('name')
						.where('user_id', '=', user.id)
						.execute(),
				).toHaveLength(2)
				throw new Error('the caller failed after it')
			}),
		).rejects.toThrow('the caller failed after it')
		expect(await workspacesOf(user.id)).toEqual([])
		await db.transaction().execute((trx) => addWorkspace(trx, user.id, 'Committed'))
		expect(await workspacesOf(user.id)).toEqual(['Committed', 'Committed 2'])
	})
})
