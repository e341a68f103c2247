/** Credits spent on one day (UTC, YYYY-MM-DD). */
export type SpentDay = { day: string; credits: number }

// The drawing's own units (the SVG scales to its card, keeping its proportions).
const WIDTH = 480
const HEIGHT = 200
const LEFT = 44
const RIGHT = 8
const TOP = 10
const BOTTOM = 40
const PLOT_W = WIDTH - LEFT - RIGHT
const PLOT_H = HEIGHT - TOP - BOTTOM

// Made once: toLocaleDateString and toLocaleString build a new Intl formatter on every call,
// and the chart labels 30 days on every render.
const dayFormat = new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric', timeZone: 'UTC' })
const numberFormat = new Intl.NumberFormat('en')

function dayLabel(day: string) {
	return dayFormat.format(new Date(`${day}T00:00:00Z`))
}

const creditsWord = (n: number) => `${numberFormat.format(n)} ${n === 1 ? 'credit' : 'credits'}`

/** What the chart says, in words: the total and the busiest day. */
export function spentSummary(days: SpentDay[]) {
	const total = days.reduce((sum, d) => sum + d.credits, 0)
	if (total === 0) return 'No credits spent in the last 30 days.'
	const top = days.reduce((a, b) => (b.credits > a.credits ? b : a))
	return `${numberFormat.format(total)} ${total === 1 ? 'credit' : 'credits'} spent in the last 30 days; the most on ${dayLabel(top.day)} (${numberFormat.format(top.credits)}).`
}

/** The y axis's ticks: whole numbers 1, 2 or 5 × 10ⁿ apart, at most five, the top ≥ max. */
export function creditTicks(max: number) {
	const rough = Math.max(1, max / 4)
	const power = 10 ** Math.floor(Math.log10(rough))
	const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power
	const top = Math.max(step, Math.ceil(max / step) * step)
	return Array.from({ length: Math.round(top / step) + 1 }, (_, i) => i * step)
}

/**
 * Credits spent a day over the last 30 days as a bar chart drawn on the server (an SVG, no
 * chart code in the browser): a y axis of credits and an x axis of days, each day's value in
 * its `<title>` (shown on hover), and for screen readers the summary and a table of the days.
 */
export function CreditsChart({ days }: { days: SpentDay[] }) {
	const ticks = creditTicks(Math.max(0, ...days.map((d) => d.credits)))
	const top = ticks.at(-1)!
	const slot = PLOT_W / Math.max(1, days.length)
	const y = (credits: number) => TOP + PLOT_H - (credits / top) * PLOT_H
	const summary = spentSummary(days)
	// a date under the last day (today) and every seventh before it
	const labelled = new Set(days.map((_, i) => i).filter((i) => (days.length - 1 - i) % 7 === 0))
	const spentDays = days.filter((d) => d.credits > 0)
	return (
		<figure>
			<svg
				viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
				className="h-auto w-full text-slate-500"
				role="img"
				aria-labelledby="spent-title spent-desc"
				data-testid="spent-chart"
			>
				<title id="spent-title">Credits spent a day, last 30 days</title>
				<desc id="spent-desc">{summary}</desc>
				<g data-testid="spent-y-axis" className="fill-current text-[11px]">
					{ticks.map((tick) => (
						<g key={tick}>
							<line
								x1={LEFT}
								x2={WIDTH - RIGHT}
								y1={y(tick)}
								y2={y(tick)}
								className={tick === 0 ? 'stroke-slate-400' : 'stroke-slate-200'}
							/>
							<text x={LEFT - 6} y={y(tick)} textAnchor="end" dominantBaseline="middle">
								{numberFormat.format(tick)}
							</text>
						</g>
					))}
					<text
						transform={`translate(12 ${TOP + PLOT_H / 2}) rotate(-90)`}
						textAnchor="middle"
						className="font-semibold"
					>
						Credits
					</text>
				</g>
				<g data-testid="spent-x-axis" className="fill-current text-[11px]">
					{days.map((d, i) =>
						labelled.has(i) ? (
							<text
								key={d.day}
								x={LEFT + i * slot + slot / 2}
								y={TOP + PLOT_H + 16}
								textAnchor={i === days.length - 1 ? 'end' : 'middle'}
							>
								{dayLabel(d.day)}
							</text>
						) : null,
					)}
					<text x={LEFT + PLOT_W / 2} y={HEIGHT - 4} textAnchor="middle" className="font-semibold">
						Day (UTC)
					</text>
				</g>
				{days.map((d, i) => (
					// the whole column answers the hover, a day without spending too
					<g key={d.day} data-testid="spent-day">
						<title>{`${dayLabel(d.day)}: ${creditsWord(d.credits)}`}</title>
						<rect x={LEFT + i * slot} y={TOP} width={slot} height={PLOT_H} fill="transparent" />
						{d.credits > 0 ? (
							<rect
								x={LEFT + i * slot + 1.5}
								width={slot - 3}
								y={y(d.credits)}
								height={TOP + PLOT_H - y(d.credits)}
								rx={1.5}
								className="fill-indigo-500 hover:fill-indigo-700"
							/>
						) : null}
					</g>
				))}
			</svg>
			<figcaption className="mt-2 text-sm text-slate-600" data-testid="spent-summary">
				{summary}
			</figcaption>
			{spentDays.length ? (
				<table className="sr-only" data-testid="spent-table">
					<caption>Credits spent on each day with spending, last 30 days (UTC)</caption>
					<thead>
						<tr>
							<th scope="col">Day</th>
							<th scope="col">Credits spent</th>
						</tr>
					</thead>
					<tbody>
						{spentDays.map((d) => (
							<tr key={d.day}>
								<th scope="row">{dayLabel(d.day)}</th>
								<td>{numberFormat.format(d.credits)}</td>
							</tr>
						))}
					</tbody>
				</table>
			) : null}
		</figure>
	)
}
