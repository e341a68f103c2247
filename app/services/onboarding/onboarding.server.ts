import { db } from '../../../db/index.server.ts'
import type { OnboardingAnswers, OnboardingValues } from './schema.ts'

export type OnboardingRecord = {
	answers: Partial<OnboardingAnswers>
	phone: string | null
	completedAt: Date | null
}

/** The account's onboarding answers (the owner's user id), or null before any were saved. */
export async function getOnboarding(accountId: string): Promise<OnboardingRecord | null> {
	const row = await db
		.selectFrom('onboarding')
		.select(['answers', 'phone', 'completed_at'])
		.where('user_id', '=', accountId)
		.executeTakeFirst()
	if (!row) return null
	return {
		answers: (row.answers ?? {}) as Partial<OnboardingAnswers>,
		phone: row.phone,
		completedAt: row.completed_at,
	}
}

/** Saves the answers and marks onboarding completed (the first time only). */
export async function saveOnboarding(accountId: string, values: OnboardingValues) {
	const { phone, phoneCountry: _country, ...answers } = values
	const json = JSON.stringify(answers)
	await db
		.insertInto('onboarding')
		.values({ user_id: accountId, answers: json, phone, completed_at: new Date() })
		.onConflict((oc) =>
			oc.column('user_id').doUpdateSet((eb) => ({
				answers: json,
				phone,
				completed_at: eb.fn.coalesce('onboarding.completed_at', eb.val(new Date())),
				updated_at: new Date(),
			})),
		)
		.execute()
}
