// What a working agency's account holds after a few months, so the signed-in GET / the bench
// measures reads what a real dashboard reads: three workspaces, 120 lead lists and 30 company
// lists over 90 days (two of each still running), 40 enrichment runs (one running over 2,000
// leads, 800 of them done), 20 EmailBison uploads (one running), and a job's credit
// reservation about every two hours for 90 days. `others` accounts get ten times as much
// between them, so the tables are not the bench account's alone (the planner sees real sizes).
import type pg from 'pg'

export async function seedAccount(client: pg.Client, email: string, { scale = 1 } = {}) {
	const {
		rows: [user],
	} = await client.query<{ id: string }>(`select id from auth.users where email = $1`, [email])
	if (!user) throw new Error(`no user ${email}`)
	const n = (count: number) => Math.max(1, Math.round(count * scale))
	await client.query('begin')
	await client.query(
		`insert into workspaces (user_id, name)
		 select $1, 'Client ' || i from generate_series(1, 3) i`,
		[user.id],
	)
	// lists spread over 90 days and the three workspaces; the newest two of each kind still run
	await client.query(
		`insert into processing_list (user_id, workspace_id, name, source_type, status, progress,
			found, requested, created_at)
		 select $1, (select id from workspaces where user_id = $1 order by name offset i % 3 limit 1),
			'Leads ' || i, case when i % 4 = 0 then 'upload' else 'apollo' end,
			case when i > $2 - 2 then 1 else 2 end, case when i > $2 - 2 then 40 else 100 end,
			500 + i * 7, 1000, now() - (($2 - i) * interval '90 days' / $2)
		 from generate_series(1, $2) i`,
		[user.id, n(120)],
	)
	await client.query(
		`insert into company_scraping_list (user_id, workspace_id, name, source_type, status,
			progress, found, created_at)
		 select $1, (select id from workspaces where user_id = $1 order by name offset i % 3 limit 1),
			'Companies ' || i, 'domains', case when i > $2 - 2 then 1 else 2 end,
			case when i > $2 - 2 then 60 else 100 end, 50 + i, now() - (($2 - i) * interval '90 days' / $2)
		 from generate_series(1, $2) i`,
		[user.id, n(30)],
	)
	// the newest lead list holds 2,000 leads; a run over them is 800 rows along
	const {
		rows: [list],
	} = await client.query<{ id: string; workspace_id: string }>(
		`select id, workspace_id from processing_list where user_id = $1 order by created_at desc limit 1`,
		[user.id],
	)
	await client.query(
		`insert into leads (list_id, user_id, workspace_id, email, first_name, company_domain)
		 select $1, $2, $3, 'lead' || i || '@example' || (i % 97) || '.com', 'Lead ' || i,
			'example' || (i % 97) || '.com'
		 from generate_series(1, $4) i`,
		[list!.id, user.id, list!.workspace_id, n(2000)],
	)
	await client.query(
		`insert into enrichment_runs (user_id, workspace_id, list_id, name, steps, key_kind, status,
			total, prepared, created_at)
		 select $1, $3, $2, 'Icebreaker ' || i, '[]', 'credits', case when i = $4 then 1 else 2 end,
			$5, true, now() - (($4 - i) * interval '90 days' / $4)
		 from generate_series(1, $4) i`,
		[user.id, list!.id, list!.workspace_id, n(40), n(2000)],
	)
	await client.query(
		`insert into enrichment_run_rows (run_id, lead_id, status)
		 select r.id, l.id, case when row_number() over (order by l.id) <= $3 then 2 else 0 end
		 from leads l, (select id from enrichment_runs where user_id = $1 and status = 1 limit 1) r
		 where l.list_id = $2`,
		[user.id, list!.id, n(800)],
	)
	await client.query(
		`insert into emailbison_upload (user_id, workspace_id, list_id, eb_workspace_id, campaign_name,
			status, total, sent, created_at)
		 select $1, $3, $2, '1', 'Campaign ' || i, case when i = $4 then 1 else 2 end, 2000,
			case when i = $4 then 700 else 2000 end, now() - (($4 - i) * interval '90 days' / $4)
		 from generate_series(1, $4) i`,
		[user.id, list!.id, list!.workspace_id, n(20)],
	)
	// a reservation every two hours for 90 days: settled ones used part, the newest still held
	await client.query(
		`insert into credit_reservations (user_id, reference, reason, amount, used, status, created_at)
		 select $1, 'job-' || i, 'enrichment', 100 + i % 50,
			case when i > $2 - 3 then null else i % 50 end,
			case when i > $2 - 3 then 'held' else 'settled' end,
			now() - (($2 - i) * interval '90 days' / $2)
		 from generate_series(1, $2) i`,
		[user.id, n(90 * 12)],
	)
	await client.query('commit')
	// an account months old: vacuumed, its statistics known, nothing left for autovacuum and the
	// checkpointer to do during the measurement
	await client.query('vacuum analyze')
	await client.query('checkpoint')
	return user.id
}
