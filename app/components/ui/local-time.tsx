import { useHydrated } from '../../utils/use-hydrated.ts'

// One format for a moment in time, everywhere it is used: the date, the time and the zone.
const OPTIONS: Intl.DateTimeFormatOptions = {
	year: 'numeric',
	month: 'short',
	day: 'numeric',
	hour: 'numeric',
	minute: '2-digit',
	timeZoneName: 'short',
}
const utc = new Intl.DateTimeFormat('en-US', { ...OPTIONS, timeZone: 'UTC' })
let local: Intl.DateTimeFormat | undefined

/**
 * A moment as the reader reads it: in their own locale and time zone once the page runs in
 * their browser; in UTC, said so, before (the server and the no-JavaScript page do not know
 * the reader's zone), so the two never disagree during hydration. The zone is always shown.
 */
export function LocalTime({ value, className }: { value: string; className?: string }) {
	const hydrated = useHydrated()
	const date = new Date(value)
	const text = hydrated
		? (local ??= new Intl.DateTimeFormat(undefined, OPTIONS)).format(date)
		: utc.format(date)
	return (
		<time dateTime={value} title={utc.format(date)} className={className}>
			{text}
		</time>
	)
}
