import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// One purchase, one payment (decision 0064): a checkout paid for something another checkout
// already paid (the same domain's subscription, the same inbox addresses) is refunded instead
// of fulfilled. Its status becomes 'refunded' with the reason in the payment's transaction;
// refunded_at is set once the money went back (at once in test mode; after Stripe's refund,
// retried until it is, otherwise), with Stripe's refund id.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
alter table checkout_sessions drop constraint checkout_sessions_status_check;
alter table checkout_sessions add constraint checkout_sessions_status_check
	check (status in ('open', 'completed', 'declined', 'expired', 'refunded'));
alter table checkout_sessions
	add column refund_reason text,
	add column refunded_at timestamptz,
	add column provider_refund_id text;
-- refunds Stripe still owes the payer: the renewal job retries them
create index checkout_sessions_refund_owed_idx on checkout_sessions (created_at)
	where status = 'refunded' and refunded_at is null;
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`
drop index checkout_sessions_refund_owed_idx;
alter table checkout_sessions
	drop column refund_reason,
	drop column refunded_at,
	drop column provider_refund_id;
alter table checkout_sessions drop constraint checkout_sessions_status_check;
alter table checkout_sessions add constraint checkout_sessions_status_check
	check (status in ('open', 'completed', 'declined', 'expired'));
`,
		)
		.execute(db)
}
