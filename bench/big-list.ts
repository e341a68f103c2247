// The data of `npm run bench:list` and `npm run bench:api`: a 1,000,000-lead list among
// 6,000,000 leads, built once here so both benches measure the same table.
import pg from 'pg'
import { signUp } from './web-process.ts'

const OTHER_LISTS = 5

/**
 * 5 older lists of another account (`otherRows` leads), then the bench account's list
 * (`listRows` leads): uuidv7 ids, so the bench list's rows come after all the others in the
 * primary key. The leads indexes are dropped for the load and made again from their own
 * definitions (the same indexes the migrations make), then the table is vacuumed and analysed
 * as autovacuum would after such inserts.
 */
export async function buildBigList(
	client: pg.Client,
	userId: string,
	{ listRows, otherRows }: { listRows: number; otherRows: number },
) {
	const other = '00000000-0000-4000-8000-0000000000aa'
	await client.query(
		`insert into auth.users (id, aud, role, email, encrypted_password, created_at, updated_at)
		 values ($1, 'authenticated', 'authenticated', 'other@bench.test', '', now(), now())`,
		[other],
	)
	await client.query(`insert into profiles (user_id) values ($1) on conflict do nothing`, [other])
	const { rows: indexes } = await client.query<{ name: string; definition: string }>(
		`select indexname as name, indexdef as definition from pg_indexes
		 where schemaname = 'public' and tablename = 'leads' and indexname <> 'leads_pkey'`,
	)
	for (const index of indexes) await client.query(`drop index ${index.name}`)
	const fill = async (owner: string, name: string, rows: number) => {
		const {
			rows: [list],
		} = await client.query<{ id: string }>(
			`insert into processing_list (user_id, name, source_type, status, found, progress, finished_at)
			 values ($1, $2, 'upload', 2, $3, 100, now()) returning id`,
			[owner, name, rows],
		)
		await client.query(
			`insert into leads (list_id, user_id, email, first_name, last_name, title, company_name,
				company_domain, linkedin_url, location, data)
			 select $1, $2, 'person' || n || '@company' || (n % 5000) || '.com',
				(array['Ada','Grace','José','Zoë','Linus','Margaret','Ken','Barbara'])[1 + n % 8],
				'Last' || (n % 7919), (array['CEO','CTO','Head of Sales','Founder'])[1 + n % 4],
				'Company ' || (n % 5000) || ', Inc.', 'company' || (n % 5000) || '.com',
				'https://www.linkedin.com/in/person' || n, (array['Berlin','London','Paris'])[1 + n % 3],
				case when n % 4 = 0 then jsonb_build_object('icebreaker', 'Hello ' || n) else '{}' end
			 from generate_series(1, $3::int) n`,
			[list!.id, owner, rows],
		)
		return list!.id
	}
	for (let i = 1; i <= OTHER_LISTS; i++)
		await fill(other, `Older list ${i}`, Math.floor(otherRows / OTHER_LISTS))
	const listId = await fill(userId, 'Big list', listRows)
	const smallListId = await fill(userId, 'Small list', 50)
	await client.query(`set maintenance_work_mem = '512MB'`)
	for (const index of indexes) await client.query(index.definition)
	await client.query(`vacuum analyze leads`)
	return { listId, smallListId }
}

/** The lists of a kept data directory, given to this run's account. */
export async function bigListBuiltBefore(client: pg.Client, userId: string) {
	const { rows } = await client.query<{ id: string; name: string }>(
		`update processing_list set user_id = $1 where name in ('Big list', 'Small list')
		 returning id, name`,
		[userId],
	)
	const listId = rows.find((r) => r.name === 'Big list')?.id
	const smallListId = rows.find((r) => r.name === 'Small list')?.id
	return listId && smallListId ? { listId, smallListId } : null
}

export async function signUpAndSubscribe(base: string, databaseUrl: string) {
	const email = `bench-${Date.now()}@example.com`
	const cookie = await signUp(base, email)
	const client = new pg.Client(databaseUrl)
	await client.connect()
	try {
		const {
			rows: [user],
		} = await client.query<{ id: string }>('select id from auth.users where email = $1', [email])
		await client.query(
			`insert into subscriptions (user_id, active_plan, status, billing_date, expire_date)
			 values ($1, 1, 'active', now(), now() + interval '30 days')`,
			[user!.id],
		)
		await client.query(
			`insert into onboarding (user_id, answers, completed_at) values ($1, '{}', now())`,
			[user!.id],
		)
		return { cookie, userId: user!.id }
	} finally {
		await client.end()
	}
}
