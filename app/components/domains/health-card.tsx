import { useState } from 'react'
import { Link } from 'react-router'
import type { DomainHealthView } from '../../services/domain-health/health.server.ts'
import {
	STATUS_WORDS,
	type CheckStatus,
	type Fix,
	type HealthCheck,
	type HealthStatus,
} from '../../services/domain-health/report.ts'
import { useHydrated } from '../../utils/use-hydrated.ts'
import { Badge, type BadgeTone } from '../ui/badge.tsx'
import { Card } from '../ui/card.tsx'
import { LocalTime } from '../ui/local-time.tsx'

const STATUS_TONE: Record<HealthStatus, BadgeTone> = {
	healthy: 'green',
	warning: 'amber',
	failing: 'red',
	unknown: 'slate',
}

const CHECK_WORDS: Record<CheckStatus, { word: string; tone: BadgeTone; mark: string }> = {
	pass: { word: 'Passed', tone: 'green', mark: '✓' },
	warn: { word: 'Warning', tone: 'amber', mark: '!' },
	fail: { word: 'Failed', tone: 'red', mark: '✗' },
	unknown: { word: 'Could not check', tone: 'slate', mark: '?' },
}

/** The grade in the table and on the cards: a letter and the status in words. */
export function HealthGrade({
	health,
	href,
}: {
	health: Pick<DomainHealthView, 'grade' | 'status' | 'pending' | 'checkedAt'> | undefined
	href?: string
}) {
	const label = !health?.status ? (
		<span className="text-slate-500">
			{health?.pending ? 'Checking health…' : 'Health not checked'}
		</span>
	) : (
		<Badge tone={STATUS_TONE[health.status]}>
			<span data-testid="health-grade">{health.grade ?? '?'}</span>
			<span aria-hidden>·</span>
			{STATUS_WORDS[health.status]}
		</Badge>
	)
	if (!href) return label
	return (
		<Link to={href} className="inline-flex items-center gap-1 hover:underline">
			{label}
			<span className="sr-only"> — health details</span>
		</Link>
	)
}

/** Copies `value` (after hydration only; the value itself is selectable text). */
function CopyButton({ value, label }: { value: string; label: string }) {
	const hydrated = useHydrated()
	const [copied, setCopied] = useState(false)
	if (!hydrated) return null
	return (
		<button
			type="button"
			className="shrink-0 rounded px-2 py-0.5 text-xs font-semibold text-indigo-700 ring-1 ring-indigo-200 hover:bg-indigo-50"
			onClick={() => {
				void navigator.clipboard?.writeText(value).then(() => setCopied(true))
			}}
		>
			{copied ? 'Copied' : 'Copy'}
			<span className="sr-only"> {label}</span>
		</button>
	)
}

function FixRecord({ fix, domain }: { fix: Fix; domain: string }) {
	const rows: [string, string][] = [
		['Host', fix.host],
		['Type', fix.type],
		['Value', fix.value],
	]
	return (
		<div className="mt-2 rounded-md bg-slate-50 p-3 ring-1 ring-slate-200" data-testid="fix-record">
			<p className="text-sm font-medium text-slate-800">
				{fix.action === 'add' ? 'Add this record' : 'Change the record to'} at your DNS host:
			</p>
			<dl className="mt-1 grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-1 text-sm">
				{rows.map(([name, value]) => (
					<div key={name} className="contents">
						<dt className="text-slate-600">{name}</dt>
						<dd className="flex min-w-0 items-start gap-2">
							<code className="min-w-0 break-all text-slate-900 select-all">{value}</code>
							{name !== 'Type' ? <CopyButton value={value} label={`${name} of ${domain}`} /> : null}
						</dd>
					</div>
				))}
			</dl>
			{fix.host !== '@' ? (
				<p className="mt-1 text-xs text-slate-600">
					Some DNS hosts want the full name: {fix.host}.{domain}
				</p>
			) : (
				<p className="mt-1 text-xs text-slate-600">“@” is the domain itself ({domain}).</p>
			)}
		</div>
	)
}

function CheckRow({ check, domain }: { check: HealthCheck; domain: string }) {
	const words = CHECK_WORDS[check.status]
	return (
		<li className="py-3" data-testid={`check-${check.key}`} data-status={check.status}>
			<div className="flex flex-wrap items-center gap-2">
				<span aria-hidden className="w-4 text-center font-bold">
					{words.mark}
				</span>
				<span className="font-medium text-slate-900">{check.label}</span>
				<Badge tone={words.tone}>{words.word}</Badge>
			</div>
			<p className="mt-1 text-sm text-slate-700">{check.summary}</p>
			{check.fix ? <FixRecord fix={check.fix} domain={domain} /> : null}
			{check.hint ? <p className="mt-1 text-sm text-slate-600">{check.hint}</p> : null}
			{check.details.length ? (
				<details className="mt-1 text-xs text-slate-600">
					<summary className="cursor-pointer">What we found</summary>
					<ul className="mt-1 space-y-0.5">
						{check.details.map((d, i) => (
							<li key={i} className="break-all">
								<code>{d}</code>
							</li>
						))}
					</ul>
				</details>
			) : null}
		</li>
	)
}

/** One domain's health: each check in plain words and, for each failure, the record to fix. */
export function HealthCard({
	health,
	locale,
	titleLink,
	actions,
}: {
	health: DomainHealthView
	locale: string
	titleLink?: string
	actions?: React.ReactNode
}) {
	const { report } = health
	// problems first: the owner reads what to fix before what is fine
	const order: CheckStatus[] = ['fail', 'warn', 'unknown', 'pass']
	const checks = report
		? report.checks.toSorted((a, b) => order.indexOf(a.status) - order.indexOf(b.status))
		: []
	return (
		<Card className="p-4 sm:p-6">
			<article aria-labelledby={`health-${health.id}`} data-testid="health-card">
				<header className="flex flex-wrap items-start justify-between gap-2">
					<div className="min-w-0">
						<h2
							id={`health-${health.id}`}
							className="text-lg font-semibold break-all text-slate-900"
						>
							{titleLink ? (
								<Link to={titleLink} className="hover:underline">
									{health.display}
								</Link>
							) : (
								health.display
							)}
						</h2>
						<p className="text-xs text-slate-600">
							{health.checkedAt ? (
								<>
									Checked <LocalTime value={health.checkedAt} locale={locale} />
								</>
							) : (
								'Not checked yet'
							)}
							{health.pending ? ' · checking again…' : null}
						</p>
					</div>
					<div className="flex flex-wrap items-center gap-2">
						<HealthGrade health={health} />
						{actions}
					</div>
				</header>
				{report ? (
					<ul className="mt-2 divide-y divide-slate-100">
						{checks.map((c) => (
							<CheckRow key={c.key} check={c} domain={health.name} />
						))}
					</ul>
				) : null}
			</article>
		</Card>
	)
}
