import { z } from 'zod'
import { checkPhone, COUNTRY_CODES } from '../../components/phone-input/phone.ts'

export const ROLES = [
	'Founder or owner',
	'Sales',
	'Marketing',
	'Agency',
	'Operations',
	'Other',
] as const
export const TEAM_SIZES = ['Just me', '2-10', '11-50', '51-200', '201+'] as const
export const GOALS = [
	'Find leads',
	'Find companies',
	'Enrich data with AI',
	'Cold email outreach',
	'Sending infrastructure',
] as const
export const HEARD_FROM = [
	'Search engine',
	'Social media',
	'A friend or colleague',
	'Newsletter or blog',
	'Podcast or video',
	'Other',
] as const

export const COMPANY_MAX = 120
export const WEBSITE_MAX = 200

/** A bare domain gets https:// in front; the result must be an http(s) URL with a real host name. */
export function normalizeWebsite(value: string) {
	const trimmed = value.trim()
	return /^[a-z][a-z\d+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`
}

const website = z
	.string()
	.trim()
	.max(WEBSITE_MAX, `Use at most ${WEBSITE_MAX} characters.`)
	.transform(normalizeWebsite)
	.pipe(
		z.url({
			protocol: /^https?$/,
			hostname: z.regexes.domain,
			error: 'Enter a website address, like example.com.',
		}),
	)

/** The fields as posted (no transforms): what conform derives the browser's constraints from. */
const fields = {
	company: z
		.string({ error: 'Enter your company name.' })
		.max(COMPANY_MAX, `Use at most ${COMPANY_MAX} characters.`)
		.trim()
		.min(1, 'Enter your company name.'),
	website: z.string().max(WEBSITE_MAX).optional(),
	role: z.enum(ROLES, { error: 'Choose your role.' }),
	teamSize: z.enum(TEAM_SIZES, { error: 'Choose your team size.' }),
	goals: z
		.array(z.enum(GOALS, { error: 'Choose from the list.' }), {
			error: 'Choose at least one goal.',
		})
		.min(1, 'Choose at least one goal.')
		.max(GOALS.length, 'Choose from the list.'),
	heardFrom: z.enum(HEARD_FROM, { error: 'Choose from the list.' }).optional(),
	phoneCountry: z.enum(COUNTRY_CODES, { error: 'Choose a country.' }),
	phone: z
		.string({ error: 'Enter your phone number.' })
		.max(25, 'Use at most 25 characters.')
		.trim(),
}

export const OnboardingConstraint = z.object(fields)

/** /onboarding and the company details of /settings: one schema for conform and the action. */
export const OnboardingSchema = z
	.object({ ...fields, website: website.optional() })
	.superRefine(
		(value, ctx) => {
			const check = checkPhone(value.phone, value.phoneCountry, { restrictCharacters: true })
			if (!check.ok) ctx.addIssue({ code: 'custom', path: ['phone'], message: check.message })
		},
		// checked even while other fields have errors, so every message shows at once
		{
			when: ({ value }) => {
				const v = value as { phone?: unknown; phoneCountry?: unknown }
				return typeof v?.phone === 'string' && typeof v?.phoneCountry === 'string'
			},
		},
	)
	.transform((value) => {
		const check = checkPhone(value.phone, value.phoneCountry, { restrictCharacters: true })
		return { ...value, phone: check.ok ? check.e164 : value.phone }
	})

export type OnboardingValues = z.output<typeof OnboardingSchema>
export type OnboardingAnswers = Omit<OnboardingValues, 'phone' | 'phoneCountry'>
