/** Credits spent on one day (UTC, YYYY-MM-DD). */
export type SpentDay = { day: string; credits: number }

const WIDTH = 300
const HEIGHT = 80

// Made once: toLocaleDateString and toLocaleString build a new Intl formatter on every call,
// and the chart labels 30 days on every render.
const dayFormat = new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric', timeZone: 'UTC' })
const numberFormat = new Intl.NumberFormat('en')

function dayLabel(day: string) {
	return dayFormat.format(new Date(`${day}T00:00:00Z`))
}

/** What the chart says, in words: the total and the busiest day. */
export function spentSummary(days: SpentDay[]) {
	const total = days.reduce((sum, d) => sum + d.credits, 0)
	if (total === 0) return 'No credits spent in the last 30 days.'
	const top = days.reduce((a, b) => (b.credits > a.credits ? b : a))
	return `${numberFormat.format(total)} ${total === 1 ? 'credit' : 'credits'} spent in the last 30 days; the most on ${dayLabel(top.day)} (${numberFormat.format(top.credits)}).`
}

/**
 * Credits spent a day over the last 30 days as a bar chart drawn on the server (an SVG with
 * its title and description, and the same in words below it), so it reads without JavaScript
 * and to screen readers.
 */
export function CreditsChart({ days }: { days: SpentDay[] }) {
	const max = Math.max(1, ...days.map((d) => d.credits))
	const slot = WIDTH / days.length
	const summary = spentSummary(days)
	return (
		<figure>
			<svg
				viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
				className="h-20 w-full"
				role="img"
				aria-labelledby="spent-title spent-desc"
				preserveAspectRatio="none"
			>
				<title id="spent-title">Credits spent a day, last 30 days</title>
				<desc id="spent-desc">{summary}</desc>
				<line x1={0} y1={HEIGHT - 0.5} x2={WIDTH} y2={HEIGHT - 0.5} className="stroke-slate-300" />
				{days.map((d, i) =>
					d.credits > 0 ? (
						<rect
							key={d.day}
							x={i * slot + 1}
							width={slot - 2}
							y={HEIGHT - (d.credits / max) * (HEIGHT - 4)}
							height={(d.credits / max) * (HEIGHT - 4)}
							className="fill-indigo-500"
						>
							<title>{`${dayLabel(d.day)}: ${numberFormat.format(d.credits)}`}</title>
						</rect>
					) : null,
				)}
			</svg>
			<figcaption className="mt-2 text-sm text-slate-600" data-testid="spent-summary">
				{summary}
			</figcaption>
		</figure>
	)
}
