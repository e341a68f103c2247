import { expect, test as setup } from '@playwright/test'
import { accountOf } from './domains-support.ts'
import { seedEnrichment } from './enrich-support.ts'
import { signedUp, signIn, withDatabase } from './support.ts'
import { adminState, FIXED_TIME, ownerState, VISUAL_LIST, VISUAL_OWNER } from './visual-support.ts'

// Runs once before visual.spec.ts (project 'visual-setup'): the same owner, data and dates on
// every run, so that each screen draws the same pixels; the e2e server starts on an empty
// database, so the fixed email is free.
setup('a fixed owner and a signed-in admin for the visual check', async ({ page, browser }) => {
	await signedUp(page, { email: VISUAL_OWNER.email, name: VISUAL_OWNER.name })
	const { userId, workspaceId } = await accountOf(VISUAL_OWNER.email)
	await withDatabase(async (client) => {
		await client.query(`update workspaces set name = 'Lisbon Outreach' where id = $1`, [
			workspaceId,
		])
		await client.query(
			`insert into subscriptions (user_id, active_plan, status, billing_date, expire_date)
			values ($1, 1, 'active', '2026-01-15T09:30:00Z', '2030-01-15T09:30:00Z')`,
			[userId],
		)
		await client.query(
			`insert into onboarding (user_id, answers, phone, completed_at)
			values ($1, '{}', null, '2026-01-15T09:30:00Z')`,
			[userId],
		)
		await client.query('insert into credit_balances (user_id, balance) values ($1, 1250)', [userId])
		const { rows: list } = await client.query<{ id: string }>(
			`insert into processing_list (user_id, name, source_type, status, found, progress)
			values ($1, $2, 'upload', 2, 6, 100) returning id`,
			[userId, VISUAL_LIST],
		)
		const people = [
			['Ana', 'Silva', 'Tidal Labs', 'tidal-labs.com', 'Founder'],
			['Bruno', 'Costa', 'Verde Foods', 'verdefoods.pt', 'CEO'],
			['Carla', 'Mendes', 'Azul Travel', 'azultravel.com', 'Head of Growth'],
			['Diogo', 'Ferreira', 'Nortada Studio', 'nortada.studio', 'Managing Partner'],
			['Eva', 'Lopes', 'Pastel Analytics', 'pastel-analytics.io', 'Co-founder'],
			['Filipe', 'Rocha', 'Farol Security', 'farolsec.com', 'CTO'],
		]
		for (const [first, last, company, domain, title] of people) {
			await client.query(
				`insert into leads (list_id, user_id, email, first_name, last_name, company_name,
					company_domain, title)
				values ($1, $2, $3, $4, $5, $6, $7, $8)`,
				[
					list[0]!.id,
					userId,
					`${first!.toLowerCase()}@${domain}`,
					first,
					last,
					company,
					domain,
					title,
				],
			)
		}
		// one subscribed domain with a delivered order of two inboxes, and one without a plan
		const { rows: domain } = await client.query<{ id: string }>(
			`insert into domains (user_id, workspace_id, name, source)
			values ($1, $2, 'northwind-mail.com', 'imported') returning id`,
			[userId, workspaceId],
		)
		await client.query(
			`insert into domain_subscriptions (user_id, domain_id, status, price_cents, billing_date, expire_date)
			values ($1, $2, 'active', 1500, '2026-01-15T09:30:00Z', '2030-01-15T09:30:00Z')`,
			[userId, domain[0]!.id],
		)
		await client.query(
			`insert into domains (user_id, workspace_id, name, source)
			values ($1, $2, 'contoso-outreach.com', 'imported')`,
			[userId, workspaceId],
		)
		// checked once, at the fixed time: otherwise the DNS column says "Checking…" until a check;
		// the forwarding's TXT token (random) fixed too
		await client.query(
			`update domains set dns_checked_at = '2026-01-15T09:30:00Z', dns = $2,
				verification_token = md5(name) where user_id = $1`,
			[
				userId,
				JSON.stringify({
					mx: ['aspmx.l.google.com'],
					spf: 'v=spf1 include:_spf.google.com ~all',
					dmarc: null,
					forwarding: { ok: false, found: [] },
				}),
			],
		)
		const { rows: order } = await client.query<{ id: string }>(
			`insert into inbox_orders (user_id, workspace_id, provider, status, inboxes_per_domain,
				domain_ids, total_cents, billing_provider, price_cents, quantity, billing_date, paid_through)
			values ($1, $2, 'google', 2, 2, array[$3::uuid], 600, 'test', 300, 2,
				'2026-01-15T09:30:00Z', '2030-01-15T09:30:00Z')
			returning id`,
			[userId, workspaceId, domain[0]!.id],
		)
		for (const [first, last] of [
			['ada', 'Lovelace'],
			['grace', 'Hopper'],
		]) {
			await client.query(
				`insert into inboxes (user_id, workspace_id, order_id, domain_id, provider, address,
					first_name, last_name, status, cancel_at_period_end, period_end)
				values ($1, $2, $3, $4, 'google', $5, $6, $7, 'active', false, '2030-01-15T09:30:00Z')`,
				[
					userId,
					workspaceId,
					order[0]!.id,
					domain[0]!.id,
					`${first}@northwind-mail.com`,
					first,
					last,
				],
			)
		}
	})
	await seedEnrichment(VISUAL_OWNER.email, {
		name: 'Opener',
		prompt: 'Write a one-line opener for {{first_name}} at {{company_name}}',
		outputColumn: 'opener',
	})
	// every row of the owner's (and the account itself) created at the same fixed time
	await withDatabase((client) =>
		client.query(`
			do $$
			declare t record;
			begin
				for t in
					select c.table_name, c.column_name from information_schema.columns c
					join information_schema.columns u on u.table_schema = c.table_schema
						and u.table_name = c.table_name and u.column_name = 'user_id'
					join information_schema.tables b on b.table_schema = c.table_schema
						and b.table_name = c.table_name and b.table_type = 'BASE TABLE'
					where c.table_schema = 'public' and c.column_name in ('created_at', 'updated_at')
				loop
					begin
						execute format('update public.%I set %I = %L where user_id = %L', t.table_name,
							t.column_name, '${FIXED_TIME.toISOString()}', '${userId}');
					exception when others then null; -- a table that refuses updates keeps its time
					end;
				end loop;
				update auth.users set created_at = '${FIXED_TIME.toISOString()}',
					last_sign_in_at = '${FIXED_TIME.toISOString()}' where id = '${userId}';
			end $$`),
	)
	await page.context().storageState({ path: ownerState })

	const admin = await browser.newPage()
	await admin.goto('/admin-login')
	await signIn(admin, 'admin@e2e.test', 'admin-password-1')
	await admin.waitForURL('**/admin-dashboard')
	// the server checks' rows (their values masked) there now, rather than when the worker's
	// first check ends
	await admin.getByRole('button', { name: 'Run checks now' }).click()
	await expect(admin.getByRole('region', { name: 'Latest health checks' })).toBeVisible()
	await admin.context().storageState({ path: adminState })
	await admin.close()
})
