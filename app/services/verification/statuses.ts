// The one status set of email verification (decision 0086), shared by the server and the
// pages: what each status means, how it shows, and which answers are charged.

export const VERIFY_STATUSES = [
	'valid',
	'catch_all',
	'risky',
	'unknown',
	'disposable',
	'invalid',
] as const
export type VerifyStatus = (typeof VERIFY_STATUSES)[number]

/** A filter of the list page: one status, or the leads never checked by us. */
export const STATUS_FILTERS = [...VERIFY_STATUSES, 'unverified'] as const
export type StatusFilter = (typeof STATUS_FILTERS)[number]

export const STATUS_INFO: Record<
	StatusFilter,
	{ label: string; tone: 'green' | 'amber' | 'red' | 'slate' | 'indigo'; meaning: string }
> = {
	valid: {
		label: 'Valid',
		tone: 'green',
		meaning: 'The mailbox exists and accepts mail: safe to send.',
	},
	catch_all: {
		label: 'Catch-all',
		tone: 'amber',
		meaning:
			'The domain accepts every address, so this one cannot be confirmed. Sending may bounce.',
	},
	risky: {
		label: 'Risky',
		tone: 'amber',
		meaning: 'A spam trap, an abuse address or a mailbox that should not be mailed.',
	},
	unknown: {
		label: 'Unknown',
		tone: 'slate',
		meaning:
			'The mail server did not say (or the check failed). Not charged; check it again later.',
	},
	disposable: {
		label: 'Disposable',
		tone: 'red',
		meaning: 'A throwaway address from a temporary mail service.',
	},
	invalid: {
		label: 'Invalid',
		tone: 'red',
		meaning: 'The mailbox does not exist: sending will bounce.',
	},
	unverified: {
		label: 'Not verified',
		tone: 'slate',
		meaning: 'Not checked by Leadsmith yet.',
	},
}

/** Answers worth paying for: the provider said for sure. */
export const CHARGED_STATUSES: readonly VerifyStatus[] = ['valid', 'invalid', 'disposable']

export function isStatusFilter(value: unknown): value is StatusFilter {
	return typeof value === 'string' && (STATUS_FILTERS as readonly string[]).includes(value)
}
