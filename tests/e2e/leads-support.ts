import type { Page } from '@playwright/test'
import { signedUp, withDatabase } from './support.ts'

/**
 * A new account with an active plan and some credits, signed in; its onboarding is
 * done unless `onboarded: false`.
 */
export async function subscribedAccount(
	page: Page,
	options: { credits?: number; onboarded?: boolean } = {},
) {
	const { email } = await signedUp(page)
	await withDatabase(async (client) => {
		const { rows } = await client.query<{ id: string }>(
			'select id from auth.users where email = $1',
			[email],
		)
		const userId = rows[0]!.id
		await client.query(
			`insert into subscriptions (user_id, active_plan, status, billing_date, expire_date)
			 values ($1, 1, 'active', now(), now() + interval '30 days')`,
			[userId],
		)
		if (options.onboarded !== false) {
			await client.query(
				`insert into onboarding (user_id, answers, phone, completed_at)
				 values ($1, '{}', null, now())`,
				[userId],
			)
		}
		if (options.credits) {
			await client.query('insert into credit_balances (user_id, balance) values ($1, $2)', [
				userId,
				options.credits,
			])
		}
	})
	return { email }
}
