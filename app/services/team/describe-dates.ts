const DAY = 86_400_000
const HOUR = 3_600_000

function plural(n: number, unit: string) {
	return `${n} ${unit}${n === 1 ? '' : 's'}`
}

/** 'Joined 21 Nov 2026', 'Expires in 6 days', 'Expired 2 days ago' (computed by the loader). */
export function acceptedOrExpiryLabel(
	entry: { expiresAt: string | null; acceptedAt: string | null },
	now: number,
) {
	if (entry.acceptedAt) {
		const date = new Date(entry.acceptedAt).toLocaleDateString('en-GB', {
			dateStyle: 'medium',
			timeZone: 'UTC',
		})
		return `Joined ${date}`
	}
	if (!entry.expiresAt) return 'Pending'
	const left = new Date(entry.expiresAt).getTime() - now
	const abs = Math.abs(left)
	const span =
		abs >= DAY
			? plural(Math.round(abs / DAY), 'day')
			: plural(Math.max(1, Math.round(abs / HOUR)), 'hour')
	return left > 0 ? `Expires in ${span}` : `Expired ${span} ago`
}
