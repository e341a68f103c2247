// What the email verification fakes answer for an address, by the start of its local part, so
// a test says what it expects in the address itself: valid…, invalid…, catchall…,
// disposable…, risky…, unknown…, error… (the provider could not tell); role addresses (info@,
// sales@, support@) are flagged; anything else is valid. Shared by the three fakes.
export type Outcome =
	'valid' | 'invalid' | 'catch_all' | 'disposable' | 'risky' | 'unknown' | 'error'

export function outcomeOf(email: string): Outcome {
	const local = email.toLowerCase().split('@')[0] ?? ''
	for (const [prefix, outcome] of [
		['invalid', 'invalid'],
		['catchall', 'catch_all'],
		['disposable', 'disposable'],
		['risky', 'risky'],
		['unknown', 'unknown'],
		['error', 'error'],
	] as const)
		if (local.startsWith(prefix)) return outcome
	return 'valid'
}

export const isRole = (email: string) =>
	/^(info|sales|support|admin|contact|hello)@/i.test(email.trim())

/** The knobs every verification fake has, for fault tests. */
export type VerifyFakeKnobs = {
	/** addresses answered (a check the provider made), each time */
	checks: string[]
	/** every request, as `METHOD path` */
	calls: string[]
	/** each answer waits this long (ms) */
	setDelay(ms: number): void
	/** the next N requests answer 429 with Retry-After (seconds) */
	rateLimitNext(n: number, retryAfterSeconds?: number): void
	/** the next N requests answer 200 with an HTML page */
	malformedNext(n: number): void
	/** the account has no credits: 200 with an error body */
	setOutOfCredits(on: boolean): void
	close(): Promise<void>
}

/** Counts of each address answered, for "checked exactly once". */
export function timesChecked(checks: string[]) {
	const counts = new Map<string, number>()
	for (const email of checks) counts.set(email, (counts.get(email) ?? 0) + 1)
	return counts
}
