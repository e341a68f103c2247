/** `date` plus `months` calendar months (UTC), the day clamped to the month's last day. */
export function addMonths(date: Date, months: number) {
	const result = new Date(date)
	const day = result.getUTCDate()
	result.setUTCDate(1)
	result.setUTCMonth(result.getUTCMonth() + months)
	const last = new Date(Date.UTC(result.getUTCFullYear(), result.getUTCMonth() + 1, 0)).getUTCDate()
	result.setUTCDate(Math.min(day, last))
	return result
}

/** The end of a billing period of `interval` starting at `start`. */
export function periodEnd(start: Date, interval: string) {
	return addMonths(start, interval === 'year' ? 12 : 1)
}
