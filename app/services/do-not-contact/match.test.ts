import { sql } from 'kysely'
import { describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { matchingEntrySql, notSuppressedSql, suppressedSql } from './match.server.ts'

// The set-operation matching (exact join, domain join on the last two labels) decides exactly
// as the lead's keys of decision 0092 (dnc_keys: the email, its domain and parents down to two
// labels), on odd emails too; the function stays in the database as the reference.
const EMAILS = [
	'jane@client.com',
	' Bob@Sub.Competitor.io ',
	'x@a.b.sub.competitor.io',
	'ann@competitor.io',
	'joe@notcompetitor.io',
	'joe@competitor.io.evil.com',
	'jane+x@client.com',
	'root@localhost',
	'no-at-sign.com',
	'trailing@',
	'two@at@deep.client.com',
	'dots@a..competitor.io',
	'keep@fine.com',
	'',
]
const ENTRIES = [
	'jane@client.com',
	'competitor.io',
	'sub.competitor.io',
	'localhost',
	'no-at-sign.com',
	'client.com',
	'evil.com',
	'io',
]

describe('matching', () => {
	test('suppressed, not suppressed and the matching entry agree with the lead keys', async () => {
		const user = await insertUser(db)
		const list = await db
			.insertInto('processing_list')
			.values({ user_id: user.id, name: 'Odd', source_type: 'upload', status: 2 })
			.returning('id')
			.executeTakeFirstOrThrow()
		await db
			.insertInto('leads')
			.values(EMAILS.map((email) => ({ list_id: list.id, user_id: user.id, email })))
			.execute()
		const emailOf = sql.ref('l.email')
		for (const entries of [ENTRIES, ['sub.competitor.io', 'jane+x@client.com'], ['io']]) {
			await db.deleteFrom('do_not_contact').where('user_id', '=', user.id).execute()
			await db
				.insertInto('do_not_contact')
				.values(entries.map((value) => ({ user_id: user.id, value, reason: 'manual' })))
				.execute()
			const { rows } = await sql<{
				email: string
				now: boolean
				not_now: boolean
				entry: string | null
				keys: boolean
				keys_entry: string | null
			}>`
				select l.email,
					${suppressedSql(user.id, emailOf, null)} as now,
					${notSuppressedSql(user.id, emailOf, null)} as not_now,
					${matchingEntrySql(user.id, emailOf, null)} as entry,
					exists (select 1 from do_not_contact d
						where d.user_id = ${user.id} and d.value = any(dnc_keys(l.email))) as keys,
					(select d.value || ' (' || d.reason || ')' from do_not_contact d
						where d.user_id = ${user.id} and d.value = any(dnc_keys(l.email))
						order by d.kind = 'email' desc, length(d.value) desc limit 1) as keys_entry
				from leads l where l.user_id = ${user.id}
			`.execute(db)
			for (const row of rows) {
				expect({ email: row.email, suppressed: row.now, entry: row.entry }).toEqual({
					email: row.email,
					suppressed: row.keys,
					entry: row.keys_entry,
				})
				expect(row.not_now).toBe(!row.keys)
			}
			if (entries === ENTRIES)
				expect(
					rows
						.filter((r) => r.now)
						.map((r) => r.email.trim())
						.sort(),
				).toEqual(
					[
						'jane@client.com',
						'Bob@Sub.Competitor.io',
						'x@a.b.sub.competitor.io',
						'ann@competitor.io',
						'joe@competitor.io.evil.com',
						'jane+x@client.com',
						'root@localhost',
						'no-at-sign.com',
						'dots@a..competitor.io', // a sub-subdomain with an empty label
					].sort(),
				)
		}
	})
})
