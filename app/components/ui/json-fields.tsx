import type { ReactNode } from 'react'
import { cn } from '../../utils/cn.ts'

// JSON values (an enrichment's JSON answer, an audit entry's before and after) read as fields:
// a definition list of names and values, nested, instead of raw JSON. Bounded: a value nested
// deeper than MAX_DEPTH, or a list or an object longer than MAX_ENTRIES, is cut with a word
// saying so, so that one odd answer cannot make a table row pages long.

const MAX_DEPTH = 3
const MAX_ENTRIES = 12
const MAX_TEXT = 300

/** An object or an array: what reads better as fields than as text. */
export function isStructured(value: unknown): value is object {
	return typeof value === 'object' && value !== null
}

function clip(text: string, max = MAX_TEXT) {
	return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

function scalar(value: unknown) {
	if (value === null || value === undefined) return '—'
	if (typeof value === 'boolean') return value ? 'yes' : 'no'
	if (typeof value === 'number') return value.toLocaleString('en')
	return clip(String(value))
}

function more(count: number) {
	return count > 0 ? `… ${count.toLocaleString('en')} more` : null
}

/**
 * A JSON value as fields: an object as a <dl> (its names and values), an array of plain values
 * as one line, of objects as a list; plain values as text.
 */
export function JsonFields({
	value,
	className,
	inline = false,
	depth = 0,
}: {
	value: unknown
	className?: string
	/** the fields one after another, wrapping as words do (a table cell); else one a line */
	inline?: boolean
	depth?: number
}): ReactNode {
	if (!isStructured(value)) return scalar(value)
	if (depth >= MAX_DEPTH) return <span className="text-slate-500">{jsonFieldsText(value)}</span>
	if (Array.isArray(value)) {
		if (value.length === 0) return <span className="text-slate-500">none</span>
		const shown = value.slice(0, MAX_ENTRIES)
		if (!shown.some(isStructured))
			return [shown.map(scalar).join(', '), more(value.length - shown.length)]
				.filter(Boolean)
				.join(' ')
		return (
			<ol className={cn('space-y-1', className)}>
				{shown.map((item, i) => (
					<li key={i} className="border-l-2 border-slate-200 pl-2">
						<JsonFields value={item} inline={inline} depth={depth + 1} />
					</li>
				))}
				{value.length > shown.length ? (
					<li className="text-slate-500">{more(value.length - shown.length)}</li>
				) : null}
			</ol>
		)
	}
	const entries = Object.entries(value)
	if (entries.length === 0) return <span className="text-slate-500">none</span>
	const shown = entries.slice(0, MAX_ENTRIES)
	return (
		<>
			<dl
				className={cn(
					inline
						? 'flex flex-wrap gap-x-3 gap-y-0.5'
						: 'grid grid-cols-[minmax(0,max-content)_minmax(0,1fr)] gap-x-3 gap-y-0.5',
					className,
				)}
			>
				{shown.map(([name, item]) => (
					<div key={name} className={inline ? 'flex min-w-0 gap-1' : 'contents'}>
						<dt className="font-medium break-words text-slate-600">{name}</dt>
						<dd className="min-w-0 break-words text-slate-800">
							<JsonFields value={item} inline={inline} depth={depth + 1} />
						</dd>
					</div>
				))}
			</dl>
			{entries.length > shown.length ? (
				<p className="text-slate-500">{more(entries.length - shown.length)}</p>
			) : null}
		</>
	)
}

/** The same on one line, for a cell that shows one line: "industry: Software · employees: 120". */
export function jsonFieldsText(value: unknown, max = MAX_TEXT): string {
	if (!isStructured(value)) return scalar(value)
	const parts = Array.isArray(value)
		? value.slice(0, MAX_ENTRIES).map((item) => jsonFieldsText(item, max))
		: Object.entries(value)
				.slice(0, MAX_ENTRIES)
				.map(([name, item]) =>
					isStructured(item) && !Array.isArray(item)
						? `${name}: (${jsonFieldsText(item, max)})`
						: `${name}: ${jsonFieldsText(item, max)}`,
				)
	const total = Array.isArray(value) ? value.length : Object.keys(value).length
	const rest = more(total - parts.length)
	return clip(
		[parts.join(Array.isArray(value) ? ', ' : ' · '), rest].filter(Boolean).join(' '),
		max,
	)
}
