/**
 * Formula injection in CSV exports (OWASP's CSV injection advice): a cell a spreadsheet could
 * run as a formula is prefixed with a single quote, so it shows as text. Spreadsheets start a
 * formula at = + - @ and, in some, at |; with East Asian input they take the full-width forms
 * (＝ ＋ － ＠ ｜) and the small forms (﹦ ﹢ ﹣ ﹫) the same way; a leading tab, carriage return
 * or line feed hides what follows. Every CSV export uses this list, in JavaScript or in SQL.
 */
export const FORMULA_STARTS = [
	'=',
	'+',
	'-',
	'@',
	'|',
	'\uFF1D', // ＝
	'\uFF0B', // ＋
	'\uFF0D', // －
	'\uFF20', // ＠
	'\uFF5C', // ｜
	'\uFE66', // ﹦
	'\uFE62', // ﹢
	'\uFE63', // ﹣
	'\uFE6B', // ﹫
	'\t',
	'\r',
	'\n',
] as const

const STARTS = new Set<string>(FORMULA_STARTS)

/** The cell as text, with a leading ' when a spreadsheet could run it as a formula. */
export function csvSafe(value: string) {
	return value !== '' && STARTS.has(value[0]!) ? `'${value}` : value
}

/** FORMULA_STARTS as a PostgreSQL array of text literals (for exports made by COPY). */
export function formulaStartsSql() {
	const literal = (c: string) =>
		c === '\t' ? "E'\\t'" : c === '\r' ? "E'\\r'" : c === '\n' ? "E'\\n'" : `'${c}'`
	return `array[${FORMULA_STARTS.map(literal).join(', ')}]::text[]`
}
