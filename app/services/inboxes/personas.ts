/** Persona names and the addresses made from them (shared by the form and the services). */

export const ADDRESS_PATTERNS = ['first', 'first.last', 'f.last', 'firstl'] as const
export type AddressPattern = (typeof ADDRESS_PATTERNS)[number]
export const PATTERN_LABELS: Record<AddressPattern, string> = {
	first: 'first (ada@)',
	'first.last': 'first.last (ada.lovelace@)',
	'f.last': 'f.last (a.lovelace@)',
	firstl: 'firstl (adal@)',
}

export type Persona = { first: string; last: string }

// What a name may hold: letters (accents are dropped in addresses), apostrophes and hyphens.
const NAME = /^[\p{L}][\p{L}'’-]*$/u

/** The ASCII letters an address takes from a name: "Zoë O'Brien" -> "zoe", "obrien". */
export function addressPart(name: string) {
	return name
		.normalize('NFKD')
		.replace(/[\u0300-\u036f]/g, '')
		.toLowerCase()
		.replace(/['’-]/g, '')
}

/**
 * "First Last" pairs, one a line (a comma or tab also separates them). Errors name the line;
 * a name whose letters an email address cannot hold is refused.
 */
export function parsePersonas(text: string): { personas: Persona[]; errors: string[] } {
	const personas: Persona[] = []
	const errors: string[] = []
	const seen = new Set<string>()
	text.split(/\r?\n/).forEach((row, index) => {
		const line = row.trim()
		if (!line) return
		const parts = line.split(/[\s,\t]+/).filter(Boolean)
		if (parts.length !== 2) {
			errors.push(`Line ${index + 1}: write a first and a last name, like “Ada Lovelace”.`)
			return
		}
		const [first, last] = parts as [string, string]
		for (const name of [first, last]) {
			if (!NAME.test(name) || !/^[a-z]+$/.test(addressPart(name)) || name.length > 40) {
				errors.push(
					`Line ${index + 1}: “${name}” has characters an email address cannot hold (use letters, ' or -).`,
				)
				return
			}
		}
		const key = `${addressPart(first)} ${addressPart(last)}`
		if (seen.has(key)) return
		seen.add(key)
		personas.push({ first, last })
	})
	return { personas, errors }
}

export function localPart(persona: Persona, pattern: AddressPattern) {
	const first = addressPart(persona.first)
	const last = addressPart(persona.last)
	switch (pattern) {
		case 'first':
			return first
		case 'first.last':
			return `${first}.${last}`
		case 'f.last':
			return `${first[0]}.${last}`
		case 'firstl':
			return `${first}${last[0]}`
	}
}

/**
 * `count` different addresses at `domain`: each persona with each pattern in turn (persona
 * first, so the inboxes spread over the names), skipping `taken` ones. Fewer combinations than
 * `count` is an error.
 */
export function planAddresses(
	domain: string,
	personas: Persona[],
	patterns: readonly AddressPattern[],
	count: number,
	taken: ReadonlySet<string> = new Set(),
) {
	const result: { address: string; first: string; last: string }[] = []
	const seen = new Set<string>()
	for (const pattern of patterns) {
		for (const persona of personas) {
			if (result.length >= count) return result
			const address = `${localPart(persona, pattern)}@${domain}`
			if (seen.has(address) || taken.has(address)) continue
			seen.add(address)
			result.push({ address, first: persona.first, last: persona.last })
		}
	}
	return result
}

const FIRST = ['Ava', 'Noah', 'Mia', 'Liam', 'Emma', 'Lucas', 'Chloe', 'Ethan', 'Grace', 'Owen']
const LAST = [
	'Carter',
	'Hughes',
	'Bennett',
	'Foster',
	'Reed',
	'Morgan',
	'Hayes',
	'Parker',
	'Brooks',
]

/** `count` made-up first and last pairs, one a line. */
export function generatePersonas(count: number, random = Math.random) {
	const lines = new Set<string>()
	while (lines.size < Math.min(count, FIRST.length * LAST.length)) {
		const first = FIRST[Math.floor(random() * FIRST.length)]
		const last = LAST[Math.floor(random() * LAST.length)]
		lines.add(`${first} ${last}`)
	}
	return [...lines].join('\n')
}
