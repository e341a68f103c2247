import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { startFakeEmailBison, type FakeEmailBison } from '../../../tests/fakes/emailbison/server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { insertWorkspace } from '../../../tests/support/team.ts'
import { loadAccountContext, type AccountContext } from '../../context.server.ts'
import { saveEmailBisonSettings } from '../emailbison/settings.server.ts'
import { listEbWorkspaces, startEmailBisonUpload } from '../emailbison/uploads.server.ts'
import { filteredLeads } from '../enrichments/run-filter.server.ts'
import { addEntry, removeEntry } from './entries.server.ts'
import { listLeadsPage } from '../lists/leads-page.server.ts'
import { sql } from 'kysely'
import { countSuppressed, uploadExclusions, uploadExclusionsQuery } from './match.server.ts'

// Enforcement against the real database; EmailBison through its local fake.
let eb: FakeEmailBison
beforeAll(async () => {
	eb = await startFakeEmailBison({ workspaces: 2 })
})
afterAll(async () => {
	await eb.close()
})

async function account() {
	const user = await insertUser(db)
	const me = await loadAccountContext(db, user)
	await saveEmailBisonSettings(me, { url: `${eb.url}/api/`, apiKey: eb.superAdminKey })
	return loadAccountContext(db, user)
}

async function leadList(me: AccountContext, emails: string[], workspaceId: string | null = null) {
	const list = await db
		.insertInto('processing_list')
		.values({
			user_id: me.accountId!,
			name: 'List',
			source_type: 'upload',
			status: 2,
			workspace_id: workspaceId,
		})
		.returning('id')
		.executeTakeFirstOrThrow()
	await db
		.insertInto('leads')
		.values(
			emails.map((email, i) => ({
				list_id: list.id,
				user_id: me.accountId!,
				email,
				first_name: `First${i}`,
				workspace_id: workspaceId,
			})),
		)
		.execute()
	return list.id
}

const EMAILS = [
	'jane@client.com',
	'Bob@Sub.Competitor.io',
	'ann@competitor.io',
	'joe@notcompetitor.io',
	'jane+x@client.com',
	'keep@fine.com',
]

const mapping = (workspace: number, extra: Record<string, unknown> = {}) => ({
	workspace,
	campaign: 'new',
	newCampaign: 'Outbound',
	fields: { email: 'email', first_name: 'first_name' },
	variables: [],
	...extra,
})

async function uploadedEmails(uploadId: string) {
	const rows = await db
		.selectFrom('emailbison_upload_leads')
		.select('email')
		.where('upload_id', '=', uploadId)
		.orderBy('email')
		.execute()
	return rows.map((r) => r.email)
}

describe('suppression', () => {
	test('email and domain entries (with subdomains) suppress; removing one lifts it', async () => {
		const me = await account()
		const listId = await leadList(me, EMAILS)
		expect(await countSuppressed(listId)).toBe(0)
		await addEntry(me, { value: 'JANE@client.com ', reason: 'unsubscribed', scope: 'account' })
		const domain = await addEntry(me, {
			value: 'competitor.io',
			reason: 'competitor',
			scope: 'account',
		})
		// jane, bob (subdomain), ann; not jane+x (plus kept distinct) nor notcompetitor.io
		expect(await countSuppressed(listId)).toBe(3)
		await removeEntry(me, domain.id)
		expect(await countSuppressed(listId)).toBe(1)
	})

	test('the list page shows the matching entry and filters suppressed leads', async () => {
		const me = await account()
		const listId = await leadList(me, EMAILS)
		await addEntry(me, { value: 'competitor.io', reason: 'competitor', scope: 'account' })
		await addEntry(me, { value: 'bob@sub.competitor.io', reason: 'bounced', scope: 'account' })
		const page = await listLeadsPage(me, listId, new URLSearchParams('suppressed=1'))
		expect(Object.fromEntries(page.leads.map((l) => [l.email, l.suppressed_by]))).toEqual({
			'Bob@Sub.Competitor.io': 'bob@sub.competitor.io (bounced)',
			'ann@competitor.io': 'competitor.io (competitor)',
		})
		const all = await listLeadsPage(me, listId, new URLSearchParams())
		expect(all.leads).toHaveLength(EMAILS.length)
		expect(all.leads.find((l) => l.email === 'keep@fine.com')!.suppressed_by).toBeNull()
	})

	test("another account's entries and another workspace's entries never apply", async () => {
		const me = await account()
		const other = await account()
		const ws = await insertWorkspace(db, me.user.id, 'A')
		const ws2 = await insertWorkspace(db, me.user.id, 'B')
		const meAgain = await loadAccountContext(db, me.user)
		const listId = await leadList(meAgain, EMAILS, ws)
		await addEntry(other, { value: 'client.com', reason: 'manual', scope: 'account' })
		await addEntry(meAgain, { value: 'keep@fine.com', reason: 'manual', scope: ws2 })
		expect(await countSuppressed(listId)).toBe(0)
		await addEntry(meAgain, { value: 'keep@fine.com', reason: 'manual', scope: ws })
		expect(await countSuppressed(listId)).toBe(1)
	})

	test('enrichment and verification selections skip suppressed leads', async () => {
		const me = await account()
		const listId = await leadList(me, EMAILS)
		await addEntry(me, { value: 'competitor.io', reason: 'competitor', scope: 'account' })
		const rows = await filteredLeads(
			db,
			{ listId, accountId: me.accountId!, enrichmentId: null, chainId: null, outputColumns: [] },
			{ q: '', where: [], only: 'all' } as never,
		)
			.select('leads.email')
			.execute()
		expect(rows.map((r) => r.email).sort()).toEqual(
			['jane@client.com', 'jane+x@client.com', 'joe@notcompetitor.io', 'keep@fine.com'].sort(),
		)
	})

	test('an upload never sends suppressed leads and leaves out leads already uploaded', async () => {
		const me = await account()
		const [target] = await listEbWorkspaces(me.accountId!)
		const first = await leadList(me, ['keep@fine.com', 'joe@notcompetitor.io'])
		const earlier = await startEmailBisonUpload(me, first, mapping(target!.id))
		// as the job leaves them: sent, with EmailBison's ids
		await db
			.updateTable('emailbison_upload_leads')
			.set({ eb_lead_id: '1' })
			.where('upload_id', '=', earlier.uploadId)
			.execute()
		await addEntry(me, { value: 'competitor.io', reason: 'competitor', scope: 'account' })
		const listId = await leadList(me, EMAILS)
		expect(await uploadExclusions(me.accountId!, listId, null, String(target!.id))).toEqual({
			suppressed: 2,
			duplicates: 2,
		})
		// one statement of set operations: no subplan run per lead (only once-run init plans)
		const { rows } = await sql<{
			'QUERY PLAN': unknown
		}>`explain (format json) ${uploadExclusionsQuery(
			me.accountId!,
			listId,
			null,
			String(target!.id),
		)}`.execute(db)
		const perRow = JSON.stringify(rows[0]!['QUERY PLAN']).match(
			/"Subplan Name":"(hashed )?SubPlan[^"]*"/g,
		)
		expect(perRow).toBeNull()
		const upload = await startEmailBisonUpload(me, listId, mapping(target!.id))
		expect(upload.total).toBe(2)
		expect(await uploadedEmails(upload.uploadId)).toEqual(['jane+x@client.com', 'jane@client.com'])
		// asked to: the duplicates go too, the suppressed never
		const all = await startEmailBisonUpload(
			me,
			listId,
			mapping(target!.id, { includeDuplicates: true }),
		)
		expect(await uploadedEmails(all.uploadId)).toEqual([
			'jane+x@client.com',
			'jane@client.com',
			'joe@notcompetitor.io',
			'keep@fine.com',
		])
	})
})
