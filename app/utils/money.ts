const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' })

/** 4900 -> "$49.00" */
export function formatCents(cents: number) {
	return usd.format(cents / 100)
}

/** A date as people read it, the same on the server and in the browser (UTC). */
export function formatDate(value: Date | string | null | undefined) {
	if (!value) return null
	return new Date(value).toLocaleDateString('en-US', { dateStyle: 'medium', timeZone: 'UTC' })
}
