import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// The dashboard's "credits spent a day over 30 days" (issue 19 point 2): a per-account, per-UTC-day
// sum kept by the database itself on every write to credit_reservations (a settled job counts
// what it used, a held one what it holds), so a dashboard view reads at most 30 rows instead of
// every reservation of the last 30 days. A trigger rather than the ledger code, so no write
// path (a fix-up by hand, a later tool) can leave the sums behind.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
create table credits_spent_daily (
	user_id uuid not null references auth.users(id) on delete cascade,
	day date not null,
	credits bigint not null,
	primary key (user_id, day)
);

create function credits_spent_daily_apply() returns trigger language plpgsql as $$
begin
	if tg_op in ('UPDATE', 'DELETE') then
		-- an update only (no insert): a cascading account deletion may have removed the row
		update credits_spent_daily
		set credits = credits
			- case when old.status = 'settled' then coalesce(old.used, 0) else old.amount end
		where user_id = old.user_id and day = (old.created_at at time zone 'UTC')::date;
	end if;
	if tg_op in ('INSERT', 'UPDATE') then
		insert into credits_spent_daily (user_id, day, credits)
		values (new.user_id, (new.created_at at time zone 'UTC')::date,
			case when new.status = 'settled' then coalesce(new.used, 0) else new.amount end)
		on conflict (user_id, day)
			do update set credits = credits_spent_daily.credits + excluded.credits;
	end if;
	return null;
end
$$;

-- no reservation written while the sums are filled in
lock table credit_reservations in share row exclusive mode;
create trigger credit_reservations_spent_daily
	after insert or delete or update of user_id, status, used, amount, created_at
	on credit_reservations for each row execute function credits_spent_daily_apply();
insert into credits_spent_daily (user_id, day, credits)
select user_id, (created_at at time zone 'UTC')::date,
	sum(case when status = 'settled' then coalesce(used, 0) else amount end)
from credit_reservations
group by 1, 2;
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`drop trigger credit_reservations_spent_daily on credit_reservations;
			drop function credits_spent_daily_apply();
			drop table credits_spent_daily;`,
		)
		.execute(db)
}
