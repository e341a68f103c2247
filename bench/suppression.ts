// `npm run bench:suppression`: the upload's confirm step (the snapshot of the list's leads into
// the upload, where do-not-contact entries and duplicates are left out in one INSERT ... SELECT)
// for BENCH_LEADS (100,000) leads with BENCH_ENTRIES (50,000) do-not-contact entries and
// BENCH_EARLIER (20,000) leads uploaded before to the same EmailBison workspace, against the same
// upload of an account with none; goal: at most 1.1x. Each side is timed BENCH_ROUNDS (3) times,
// alternating, best kept. A real embedded PostgreSQL; EmailBison is the local fake (the
// calls before the snapshot are the same on both sides). Smaller sizes for a loaded machine;
// BENCH_EXPLAIN=1 prints the plan of the snapshot's SELECT for both sides first.
import { startFakeEmailBison } from '../tests/fakes/emailbison/server.ts'
import { startBenchDatabase } from './database.ts'

const LEADS = Number(process.env.BENCH_LEADS ?? 100_000)
const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 50_000)
const EARLIER = Number(process.env.BENCH_EARLIER ?? 20_000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)

const eb = await startFakeEmailBison({ workspaces: 1 })
const pg = await startBenchDatabase('suppression', { ALLOW_PRIVATE_URLS: 'true' })
try {
	const { db } = await import('../db/index.server.ts')
	const { migrateToLatest } = await import('../db/migrate.ts')
	await migrateToLatest(db)
	const { sql } = await import('kysely')
	const { insertUser } = await import('../tests/support/factories.ts')
	const { loadAccountContext } = await import('../app/context.server.ts')
	const { saveEmailBisonSettings } = await import('../app/services/emailbison/settings.server.ts')
	const { listEbWorkspaces, startEmailBisonUpload } =
		await import('../app/services/emailbison/uploads.server.ts')
	const { stopBoss } = await import('../app/jobs/boss.server.ts')

	async function account(withData: boolean) {
		const user = await insertUser(db)
		await saveEmailBisonSettings(await loadAccountContext(db, user), {
			url: `${eb.url}/api/`,
			apiKey: eb.superAdminKey,
		})
		const me = await loadAccountContext(db, user)
		const list = await db
			.insertInto('processing_list')
			.values({ user_id: user.id, name: 'Bench', source_type: 'upload', status: 2, found: LEADS })
			.returning('id')
			.executeTakeFirstOrThrow()
		await sql`
			insert into leads (list_id, user_id, email, first_name)
			select ${list.id}::uuid, ${user.id}::uuid, 'lead' || i || '@company' || (i % 20000) || '.com', 'F'
			from generate_series(1, ${LEADS}::int) i
		`.execute(db)
		const [workspace] = await listEbWorkspaces(user.id)
		if (withData) {
			// half the entries are emails (some of the list's), half domains (a few of its companies)
			await sql`
				insert into do_not_contact (user_id, value, reason)
				select ${user.id}::uuid,
					case when i % 2 = 0 then 'lead' || (i * 7) || '@company' || ((i * 7) % 20000) || '.com'
						else 'other' || i || '.com' end, 'manual'
				from generate_series(1, ${ENTRIES}::int) i
				union all select ${user.id}::uuid, 'company' || i || '.com', 'competitor'
				from generate_series(1, 10) i
				on conflict do nothing
			`.execute(db)
			const earlier = await db
				.insertInto('emailbison_upload')
				.values({
					list_id: list.id,
					user_id: user.id,
					eb_workspace_id: String(workspace!.id),
					campaign_id: '1',
					status: 2,
				})
				.returning('id')
				.executeTakeFirstOrThrow()
			await sql`
				insert into emailbison_upload_leads (upload_id, lead_id, email, eb_lead_id)
				select ${earlier.id}::uuid, id, email, '1' from leads
				where list_id = ${list.id} order by id limit ${EARLIER}
			`.execute(db)
		}
		await sql`analyze`.execute(db)
		return { me, listId: list.id, workspace: workspace!.id }
	}

	const plain = await account(false)
	const guarded = await account(true)
	const upload = async (side: typeof plain) => {
		const at = performance.now()
		const { total } = await startEmailBisonUpload(side.me, side.listId, {
			workspace: side.workspace,
			campaign: 'new',
			newCampaign: 'Bench',
			fields: { email: 'email', first_name: 'first_name' },
			variables: [],
		})
		return { seconds: (performance.now() - at) / 1000, total }
	}
	if (process.env.BENCH_EXPLAIN) {
		// BENCH_EXPLAIN=1: the snapshot's SELECT as the upload runs it, with EXPLAIN (ANALYZE, BUFFERS)
		const { alreadyUploadedSql, notSuppressedSql } =
			await import('../app/services/do-not-contact/match.server.ts')
		for (const side of [plain, guarded]) {
			const { rows } = await sql<{ 'QUERY PLAN': string }>`
				explain (analyze, buffers) select l.id, l.email from leads l
				where l.list_id = ${side.listId} and coalesce(trim(l.email), '') <> ''
					and ${notSuppressedSql(side.me.accountId!, sql.ref('l.email'), null)}
					and not ${alreadyUploadedSql(side.me.accountId!, String(side.workspace), sql.ref('l.email'))}
			`.execute(db)
			console.log(rows.map((r) => r['QUERY PLAN']).join('\n'))
		}
	}
	let none = Infinity
	let withEntries = Infinity
	let sent = { none: 0, withEntries: 0 }
	for (let round = 0; round < ROUNDS; round++) {
		const a = await upload(plain)
		const b = await upload(guarded)
		none = Math.min(none, a.seconds)
		withEntries = Math.min(withEntries, b.seconds)
		sent = { none: a.total, withEntries: b.total }
	}
	const ratio = withEntries / none
	console.log(
		[
			`suppression bench: upload of ${LEADS.toLocaleString('en')} leads (confirm step: the snapshot into the upload)`,
			`none: ${none.toFixed(2)} s, ${sent.none.toLocaleString('en')} leads to send`,
			`${ENTRIES.toLocaleString('en')} entries + ${EARLIER.toLocaleString('en')} earlier-uploaded: ${withEntries.toFixed(2)} s, ${sent.withEntries.toLocaleString('en')} leads to send`,
			`ratio: ${ratio.toFixed(2)}x (${ratio <= 1.1 ? 'within' : 'OVER'} 1.1x)`,
		].join('\n'),
	)
	await stopBoss()
	await db.destroy()
} finally {
	await eb.close()
	await pg.stop()
}
