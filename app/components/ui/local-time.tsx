import { useHydrated } from '../../utils/use-hydrated.ts'

// One format for a moment in time, everywhere it is used: the date, the time and the zone.
const DATE: Intl.DateTimeFormatOptions = { year: 'numeric', month: 'short', day: 'numeric' }
const DATE_TIME: Intl.DateTimeFormatOptions = {
	...DATE,
	hour: 'numeric',
	minute: '2-digit',
	timeZoneName: 'short',
}
const formats = new Map<string, Intl.DateTimeFormat>()
function format(locale: string | undefined, options: Intl.DateTimeFormatOptions, utc: boolean) {
	const key = `${locale ?? ''}|${options === DATE ? 'd' : 't'}|${utc ? 'utc' : 'local'}`
	let f = formats.get(key)
	if (!f) {
		f = new Intl.DateTimeFormat(locale, utc ? { ...options, timeZone: 'UTC' } : options)
		formats.set(key, f)
	}
	return f
}

/**
 * A moment as the reader reads it: in their own locale and time zone once the page runs in
 * their browser; before (the server and the no-JavaScript page do not know the reader's zone)
 * in UTC, said so, in the locale the browser asked for (`locale`, from Accept-Language), so the
 * two never disagree during hydration. Never a second, GMT, form beside it. `dateOnly`: the day.
 */
export function LocalTime({
	value,
	locale = 'en-US',
	dateOnly = false,
	className,
}: {
	/** an ISO timestamp */
	value: string
	locale?: string
	dateOnly?: boolean
	className?: string
}) {
	const hydrated = useHydrated()
	const date = new Date(value)
	const options = dateOnly ? DATE : DATE_TIME
	const utcText = safeFormat(locale, options, true, date)
	const text = hydrated ? format(undefined, options, false).format(date) : utcText
	return (
		<time dateTime={value} title={utcText} className={className}>
			{text}
		</time>
	)
}

// a locale tag from a header that Intl refuses falls back to English, never a 500
function safeFormat(locale: string, options: Intl.DateTimeFormatOptions, utc: boolean, date: Date) {
	try {
		return format(locale, options, utc).format(date)
	} catch {
		return format('en-US', options, utc).format(date)
	}
}
