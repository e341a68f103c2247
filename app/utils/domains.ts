import { domainToASCII } from 'node:url'
import { parse as parseHostname } from 'tldts'

export type DomainProblem = { line: number; value: string; reason: string }

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/

/**
 * A bare, lower-case, punycode hostname from what people paste: "https://www.Acme.com/about",
 * "acme.com", "bücher.de". Null with a reason when it cannot be one.
 */
export function normalizeDomain(
	input: string,
	options: { publicSuffix?: boolean } = {},
): { domain: string } | { reason: string } {
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
	if (options.publicSuffix) {
		const reason = publicSuffixProblem(ascii)
		if (reason) return { reason }
	}
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

/**
 * Why a hostname cannot be registered under a public suffix (the Public Suffix List, through
 * tldts): an unknown ending ("acme.notatld"), or a public suffix itself ("co.uk").
 */
export function publicSuffixProblem(hostname: string): string | null {
	const parsed = parseHostname(hostname, { allowPrivateDomains: true })
	if (!parsed.isIcann && !parsed.isPrivate) {
		return `.${parsed.publicSuffix ?? hostname.split('.').at(-1)} is not a public domain ending`
	}
	if (!parsed.domain) return `${hostname} is a public suffix, not a domain`
	return null
}

export type DomainEntry = {
	/** 1-based line of the input */
	line: number
	/** what was typed */
	value: string
	/** the lower-case punycode name (valid and duplicate entries) */
	domain: string | null
	status: 'valid' | 'duplicate' | 'invalid'
	reason: string | null
}

/**
 * Every entry of a pasted list (newline, comma, semicolon or space separated), in order, each
 * checked: hostname syntax, a public suffix, IDN to punycode, lower case; repeats of an earlier
 * entry are duplicates.
 */
export function checkDomainEntries(text: string): DomainEntry[] {
	const entries: DomainEntry[] = []
	const seen = new Map<string, number>()
	text.split(/\r?\n/).forEach((row, index) => {
		for (const value of row.split(/[\s,;]+/).filter(Boolean)) {
			const line = index + 1
			const result = normalizeDomain(value, { publicSuffix: true })
			if ('reason' in result) {
				entries.push({ line, value, domain: null, status: 'invalid', reason: result.reason })
			} else if (seen.has(result.domain)) {
				entries.push({
					line,
					value,
					domain: result.domain,
					status: 'duplicate',
					reason: `repeats line ${seen.get(result.domain)}`,
				})
			} else {
				seen.set(result.domain, line)
				entries.push({ line, value, domain: result.domain, status: 'valid', reason: null })
			}
		}
	})
	return entries
}
