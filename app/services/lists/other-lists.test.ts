import { describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { buildAccounts, contextOf, outcomeOf } from '../../../tests/support/team.ts'
import { loadAccountContext, type AccountContext } from '../../context.server.ts'
import { inOtherListsPreview, removeInOtherLists } from './other-lists.server.ts'

// "Remove leads that are in my other lists": by normalised email, the account's lists only.

async function list(
	me: AccountContext,
	emails: string[],
	status = 2,
	workspaceId: string | null = null,
) {
	const { id } = await db
		.insertInto('processing_list')
		.values({
			user_id: me.accountId!,
			name: 'L',
			source_type: 'upload',
			status,
			found: emails.length,
			workspace_id: workspaceId,
		})
		.returning('id')
		.executeTakeFirstOrThrow()
	if (emails.length)
		await db
			.insertInto('leads')
			.values(
				emails.map((email, i) => ({
					list_id: id,
					user_id: me.accountId!,
					email,
					first_name: `F${i}`,
				})),
			)
			.execute()
	return id
}

describe('remove leads that are in my other lists', () => {
	test('previews and removes the leads another list of the account has, and counts them out', async () => {
		const me = await loadAccountContext(db, await insertUser(db))
		const stranger = await loadAccountContext(db, await insertUser(db))
		const target = await list(me, ['ann@a.com', 'bob@b.com', 'cat@c.com', 'dan@d.com'])
		await list(me, [' ANN@A.com', 'bob@b.com'])
		await list(me, ['bob@b.com'])
		// another account's list never counts, nor does a different address at the same domain
		await list(stranger, ['cat@c.com', 'dan@d.com'])
		await list(me, ['dan+x@d.com'])

		expect(await inOtherListsPreview(me, target)).toMatchObject({ count: 2 })
		expect(await removeInOtherLists(me, target)).toBe(2)
		const left = await db
			.selectFrom('leads')
			.select('email')
			.where('list_id', '=', target)
			.orderBy('email')
			.execute()
		expect(left.map((r) => r.email)).toEqual(['cat@c.com', 'dan@d.com'])
		const { found } = await db
			.selectFrom('processing_list')
			.select('found')
			.where('id', '=', target)
			.executeTakeFirstOrThrow()
		expect(found).toBe(2)
		// the other lists keep their leads; a second run removes nothing
		expect(await removeInOtherLists(me, target)).toBe(0)
		expect(await inOtherListsPreview(me, target)).toMatchObject({ count: 0 })
	})

	test("another account's list is a 404; a list still being filled is refused", async () => {
		const me = await loadAccountContext(db, await insertUser(db))
		const stranger = await loadAccountContext(db, await insertUser(db))
		const theirs = await list(stranger, ['a@a.com'])
		expect(await outcomeOf(() => inOtherListsPreview(me, theirs))).toBe(404)
		expect(await outcomeOf(() => removeInOtherLists(me, theirs))).toBe(404)
		const running = await list(me, ['a@a.com'], 1)
		await list(me, ['a@a.com'])
		expect(await outcomeOf(() => removeInOtherLists(me, running))).toBe(409)
	})

	test("a member kept to some workspaces: lists of the others don't count", async () => {
		const { users, workspaces } = await buildAccounts(db)
		const owner = await contextOf(db, users.owner)
		const noX = await contextOf(db, users.noX)
		const inY = await list(owner, ['ann@a.com', 'bob@b.com'], 2, workspaces.Y)
		await list(owner, ['ann@a.com'], 2, workspaces.X)
		await list(owner, ['bob@b.com'], 2, workspaces.Y)
		expect(await inOtherListsPreview(owner, inY)).toMatchObject({ count: 2 })
		expect(await inOtherListsPreview(noX, inY)).toMatchObject({ count: 1 })
		expect(await removeInOtherLists(noX, inY)).toBe(1)
	})
})
