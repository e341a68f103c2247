import { domainToASCII } from 'node:url'

export type DomainProblem = { line: number; value: string; reason: string }

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/

/**
 * A bare, lower-case, punycode hostname from what people paste: "https://www.Acme.com/about",
 * "acme.com", "bücher.de". Null with a reason when it cannot be one.
 */
export function normalizeDomain(input: string): { domain: string } | { reason: string } {
	let value = input.trim().toLowerCase()
	if (!value) return { reason: 'empty' }
	value = value
		.replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
		.replace(/[/?#].*$/, '')
		.replace(/:\d+$/, '')
		.replace(/\.$/, '')
	value = value.replace(/^www\./, '')
	const ascii = domainToASCII(value)
	if (!ascii) return { reason: 'not a valid domain name' }
	const labels = ascii.split('.')
	if (labels.length < 2) return { reason: 'a domain needs a dot, like acme.com' }
	if (ascii.length > 253 || !labels.every((l) => LABEL.test(l)))
		return { reason: 'not a valid domain name' }
	if (/^\d+$/.test(labels.at(-1)!)) return { reason: 'an IP address is not a domain' }
	return { domain: ascii }
}

/** Domains from pasted text (newline, comma or space separated): unique valid ones, and what was wrong with the rest. */
export function parseDomainList(text: string) {
	const domains: string[] = []
	const seen = new Set<string>()
	const invalid: DomainProblem[] = []
	const duplicates: DomainProblem[] = []
	text.split(/\r?\n/).forEach((row, index) => {
		for (const value of row.split(/[\s,;]+/).filter(Boolean)) {
			const result = normalizeDomain(value)
			if ('reason' in result) invalid.push({ line: index + 1, value, reason: result.reason })
			else if (seen.has(result.domain))
				duplicates.push({ line: index + 1, value, reason: 'duplicate' })
			else {
				seen.add(result.domain)
				domains.push(result.domain)
			}
		}
	})
	return { domains, invalid, duplicates }
}
