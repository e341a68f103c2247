import { randomUUID } from 'node:crypto'
import { beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { insertSubscription, insertUser } from '../../../tests/support/factories.ts'
import { contextOf, insertMember, insertWorkspace, outcomeOf } from '../../../tests/support/team.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { deleteLead, findLead, updateLead } from './lead-edit.server.ts'
import { LeadEditSchema } from './lead-schema.ts'

type Account = Awaited<ReturnType<typeof contextOf>>
let owner: Account
let stranger: Account
let member: Account
let workspaceId: string
let otherWorkspaceId: string

beforeAll(async () => {
	const user = await insertUser(db)
	await insertSubscription(db, user.id)
	workspaceId = await insertWorkspace(db, user.id, 'Main')
	otherWorkspaceId = await insertWorkspace(db, user.id, 'Other')
	owner = await contextOf(db, user)
	const other = await insertUser(db)
	await insertSubscription(db, other.id)
	stranger = await contextOf(db, other)
	const memberUser = await insertMember(db, user, { role: 'editor', workspaceIds: [workspaceId] })
	member = await contextOf(db, memberUser)
})

/** A finished list of `emails` in a workspace (found counts them, as an import leaves it). */
async function listWith(account: Account, emails: string[], workspace: string | null) {
	const listId = randomUUID()
	await db
		.insertInto('processing_list')
		.values({
			id: listId,
			user_id: account.accountId,
			workspace_id: workspace,
			name: 'Edited',
			source_type: 'upload',
			status: 2,
			found: emails.length,
		})
		.execute()
	const leads = await db
		.insertInto('leads')
		.values(
			emails.map((email) => ({
				list_id: listId,
				user_id: account.accountId,
				workspace_id: workspace,
				email,
				first_name: 'Ada',
			})),
		)
		.returning(['id', 'email'])
		.execute()
	return { listId, leadIds: leads.map((l) => l.id) }
}

function input(values: Record<string, string>) {
	const parsed = LeadEditSchema.safeParse({ intent: 'save', ...values })
	if (!parsed.success) throw new Error(parsed.error.message)
	return parsed.data
}

async function found(listId: string) {
	const row = await db
		.selectFrom('processing_list')
		.select('found')
		.where('id', '=', listId)
		.executeTakeFirstOrThrow()
	return row.found
}

describe('editing a lead', () => {
	test('saves the fields, the email lower-cased and the company domain normalised', async () => {
		const { listId, leadIds } = await listWith(owner, ['ada@example.com'], workspaceId)
		const saved = await updateLead(
			owner,
			listId,
			leadIds[0],
			input({
				email: '  Ada.Lovelace@Example.COM ',
				first_name: 'Augusta',
				last_name: 'King',
				company_domain: 'https://www.Analytical.co.uk/engine',
				title: '',
			}),
		)
		expect(saved.lead.email).toBe('ada.lovelace@example.com')
		const { lead } = await findLead(owner, listId, leadIds[0])
		expect(lead).toMatchObject({
			email: 'ada.lovelace@example.com',
			first_name: 'Augusta',
			last_name: 'King',
			company_domain: 'analytical.co.uk',
			title: null,
		})
	})

	test('an address already in the list is a field error and writes nothing', async () => {
		const { listId, leadIds } = await listWith(owner, ['a@example.com', 'b@example.com'], null)
		const error = await updateLead(
			owner,
			listId,
			leadIds[1],
			input({ email: 'A@example.com', first_name: 'Changed' }),
		).catch((e: unknown) => e)
		expect(error).toBeInstanceOf(FormError)
		expect((error as FormError).field).toBe('email')
		const { lead } = await findLead(owner, listId, leadIds[1])
		expect(lead).toMatchObject({ email: 'b@example.com', first_name: 'Ada' })
	})

	test('a bad email is refused by the schema', () => {
		expect(LeadEditSchema.safeParse({ intent: 'save', email: 'not an address' }).success).toBe(
			false,
		)
	})
})

describe('deleting a lead', () => {
	test('removes the lead and the list counts one lead fewer', async () => {
		const { listId, leadIds } = await listWith(owner, ['a@x.com', 'b@x.com', 'c@x.com'], null)
		await deleteLead(owner, listId, leadIds[1])
		expect(await found(listId)).toBe(2)
		const left = await db
			.selectFrom('leads')
			.select('email')
			.where('list_id', '=', listId)
			.orderBy('email')
			.execute()
		expect(left.map((l) => l.email)).toEqual(['a@x.com', 'c@x.com'])
	})

	test('a list still importing refuses edits and deletes', async () => {
		const { listId, leadIds } = await listWith(owner, ['a@x.com'], null)
		await db.updateTable('processing_list').set({ status: 1 }).where('id', '=', listId).execute()
		expect(await outcomeOf(() => deleteLead(owner, listId, leadIds[0]))).toBe('form')
		expect(
			await outcomeOf(() => updateLead(owner, listId, leadIds[0], input({ email: 'z@x.com' }))),
		).toBe('form')
		expect(await found(listId)).toBe(1)
	})
})

describe('access', () => {
	test("another account's lead, or a lead of another list, is a 404 and is never touched", async () => {
		const mine = await listWith(owner, ['mine@x.com'], workspaceId)
		const theirs = await listWith(stranger, ['theirs@x.com'], null)
		// their list and lead
		expect(await outcomeOf(() => findLead(owner, theirs.listId, theirs.leadIds[0]))).toBe(404)
		expect(await outcomeOf(() => deleteLead(owner, theirs.listId, theirs.leadIds[0]))).toBe(404)
		// my list, their lead
		expect(await outcomeOf(() => deleteLead(owner, mine.listId, theirs.leadIds[0]))).toBe(404)
		expect(
			await outcomeOf(() =>
				updateLead(owner, mine.listId, theirs.leadIds[0], input({ email: 'x@x.com' })),
			),
		).toBe(404)
		expect(await outcomeOf(() => findLead(owner, mine.listId, 'not-a-uuid'))).toBe(404)
		expect(await found(theirs.listId)).toBe(1)
		const theirLead = await db
			.selectFrom('leads')
			.select('email')
			.where('id', '=', theirs.leadIds[0]!)
			.executeTakeFirst()
		expect(theirLead?.email).toBe('theirs@x.com')
	})

	test("a member outside the list's workspace gets a 404; inside it may edit", async () => {
		const outside = await listWith(owner, ['out@x.com'], otherWorkspaceId)
		expect(await outcomeOf(() => deleteLead(member, outside.listId, outside.leadIds[0]))).toBe(404)
		const inside = await listWith(owner, ['in@x.com'], workspaceId)
		expect(await outcomeOf(() => deleteLead(member, inside.listId, inside.leadIds[0]))).toBe('ok')
	})
})
