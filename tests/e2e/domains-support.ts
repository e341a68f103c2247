import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { e2eDnsZoneDir } from '../../playwright.config.ts'
import type { ZoneRecords } from '../fakes/dns/server.ts'
import { withDatabase } from './support.ts'

/** Publishes DNS records for `name` in the e2e server's fake DNS (a file per name). */
export function publishDns(name: string, records: ZoneRecords) {
	mkdirSync(e2eDnsZoneDir, { recursive: true })
	writeFileSync(path.join(e2eDnsZoneDir, `${name}.json`), JSON.stringify(records))
}

/** The account's id and its first workspace (made when missing). */
export async function accountOf(email: string) {
	return withDatabase(async (client) => {
		const { rows } = await client.query<{ id: string }>(
			'select id from auth.users where email = $1',
			[email],
		)
		const userId = rows[0]!.id
		let { rows: ws } = await client.query<{ id: string }>(
			'select id from workspaces where user_id = $1 order by created_at limit 1',
			[userId],
		)
		if (!ws.length) {
			;({ rows: ws } = await client.query<{ id: string }>(
				`insert into workspaces (user_id, name) values ($1, 'Main') returning id`,
				[userId],
			))
		}
		return { userId, workspaceId: ws[0]!.id }
	})
}

/** Domains of the account with a paid month of domain subscription (as a test checkout leaves them). */
export async function subscribedDomains(email: string, names: string[]) {
	const { userId, workspaceId } = await accountOf(email)
	return withDatabase(async (client) => {
		const ids: string[] = []
		for (const name of names) {
			const { rows } = await client.query<{ id: string }>(
				`insert into domains (user_id, workspace_id, name, source) values ($1, $2, $3, 'imported')
				returning id`,
				[userId, workspaceId, name],
			)
			const id = rows[0]!.id
			await client.query(
				`insert into domain_subscriptions (user_id, domain_id, status, price_cents, billing_date, expire_date)
				values ($1, $2, 'active', 1500, now(), now() + interval '30 days')`,
				[userId, id],
			)
			ids.push(id)
		}
		return ids
	})
}

export function uniqueDomain(prefix = 'd') {
	return `${prefix}-${Math.random().toString(36).slice(2, 10)}.com`
}
