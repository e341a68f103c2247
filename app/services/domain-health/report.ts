/**
 * A domain's health as the page shows it (issue 38): each check passed, warned, failed or could
 * not be checked, in plain words, with the record to add or change for each failure.
 */
export type CheckStatus = 'pass' | 'warn' | 'fail' | 'unknown'
export type CheckKey = 'mx' | 'spf' | 'dkim' | 'dmarc' | 'domain-blocklists' | 'ip-blocklists'

/** The record to add or change, as a DNS panel asks for it. */
export type Fix = { action: 'add' | 'change'; host: string; type: string; value: string }

export type HealthCheck = {
	key: CheckKey
	label: string
	status: CheckStatus
	/** one sentence a non-technical owner understands */
	summary: string
	/** what was found, for the curious (records, lists, counts) */
	details: string[]
	fix?: Fix
	/** a step that is not a record (e.g. "turn on DKIM in Google Admin") */
	hint?: string
}

/** failing: a check failed; warning: one warned; unknown: some could not be checked. */
export type HealthStatus = 'healthy' | 'warning' | 'failing' | 'unknown'

export type HealthReport = {
	checks: HealthCheck[]
	status: HealthStatus
	/** 0-100; null when nothing could be checked */
	score: number | null
	grade: Grade | null
}

export type Grade = 'A' | 'B' | 'C' | 'D' | 'F'

export const CHECK_LABELS: Record<CheckKey, string> = {
	mx: 'Receives mail (MX)',
	spf: 'Sender list (SPF)',
	dkim: 'Signature key (DKIM)',
	dmarc: 'Policy (DMARC)',
	'domain-blocklists': 'Domain block lists',
	'ip-blocklists': 'Server block lists',
}

/** What each failure and warning costs the score (a block list weighs most). */
const COST: Record<CheckKey, { fail: number; warn: number }> = {
	mx: { fail: 30, warn: 10 },
	spf: { fail: 30, warn: 10 },
	dkim: { fail: 25, warn: 10 },
	dmarc: { fail: 20, warn: 5 },
	'domain-blocklists': { fail: 50, warn: 10 },
	'ip-blocklists': { fail: 40, warn: 10 },
}

export function gradeOf(score: number): Grade {
	return score >= 90 ? 'A' : score >= 80 ? 'B' : score >= 65 ? 'C' : score >= 50 ? 'D' : 'F'
}

/** The score, grade and status of a set of checks; a check that could not run costs nothing. */
export function summarise(checks: HealthCheck[]): HealthReport {
	const known = checks.filter((c) => c.status !== 'unknown')
	if (!known.length) return { checks, status: 'unknown', score: null, grade: null }
	let score = 100
	for (const c of known) {
		if (c.status === 'fail') score -= COST[c.key].fail
		if (c.status === 'warn') score -= COST[c.key].warn
	}
	score = Math.max(0, score)
	const status: HealthStatus = checks.some((c) => c.status === 'fail')
		? 'failing'
		: checks.some((c) => c.status === 'warn')
			? 'warning'
			: checks.some((c) => c.status === 'unknown')
				? 'unknown'
				: 'healthy'
	return { checks, status, score, grade: gradeOf(score) }
}

/** Worst first: failing, then warning, could not check, healthy, never checked; then by score. */
export const STATUS_RANK: Record<HealthStatus | 'unchecked', number> = {
	failing: 0,
	warning: 1,
	unknown: 2,
	healthy: 3,
	unchecked: 4,
}

export const STATUS_WORDS: Record<HealthStatus, string> = {
	healthy: 'Healthy',
	warning: 'Needs attention',
	failing: 'Failing',
	unknown: 'Could not check everything',
}
