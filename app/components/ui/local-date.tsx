import { useHydrated } from '../../utils/use-hydrated.ts'

/**
 * A date (or date and time) in one format, the user's: the server writes it in the locale the
 * browser asked for (Accept-Language, `locale`), in UTC; once hydrated the browser writes it
 * in its own locale and time zone. Never a second, GMT, form beside it.
 */
export function LocalDate({
	value,
	locale,
	withTime = false,
}: {
	/** an ISO timestamp */
	value: string
	locale: string
	withTime?: boolean
}) {
	const hydrated = useHydrated()
	const options: Intl.DateTimeFormatOptions = withTime
		? { dateStyle: 'medium', timeStyle: 'short' }
		: { dateStyle: 'medium' }
	const text = new Date(value).toLocaleString(
		hydrated ? undefined : locale,
		hydrated ? options : { ...options, timeZone: 'UTC' },
	)
	return (
		<time dateTime={value} suppressHydrationWarning>
			{text}
		</time>
	)
}
