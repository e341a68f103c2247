import {
	getCountries,
	getCountryCallingCode,
	parsePhoneNumberFromString,
	type CountryCode,
} from 'libphonenumber-js/max'
import labels from 'react-phone-number-input/locale/en'

/** SPEC.md section 5: at most 25 characters unless a field says otherwise. */
export const PHONE_MAX_LENGTH = 25
/** The restricted character set (an option of the field): digits, spaces, parentheses, plus, hyphen. */
export const PHONE_ALLOWED_CHARACTERS = /^[\d\s()+-]*$/
export const PHONE_DISALLOWED_CHARACTER = /[^\d\s()+-]/g
export const DEFAULT_PREFERRED_COUNTRY = 'US'

export type Country = { code: CountryCode; name: string; callingCode: string }

/** Every country libphonenumber-js knows, by English name. */
export const COUNTRIES: Country[] = getCountries()
	.map((code) => ({
		code,
		name: (labels as Record<string, string>)[code] ?? code,
		callingCode: getCountryCallingCode(code),
	}))
	.sort((a, b) => a.name.localeCompare(b.name, 'en'))

export const COUNTRY_CODES = COUNTRIES.map((c) => c.code) as [CountryCode, ...CountryCode[]]

export function findCountry(code: string | null | undefined): Country | undefined {
	if (!code) return undefined
	const upper = code.trim().toUpperCase()
	return COUNTRIES.find((c) => c.code === upper)
}

/** The preferred country when it is known, else the first of the list. */
export function fallbackCountry(preferred: string | undefined = DEFAULT_PREFERRED_COUNTRY) {
	return findCountry(preferred) ?? COUNTRIES[0]!
}

export function countryLabel(country: Country) {
	return `${country.name} (+${country.callingCode})`
}

/** Countries whose name, code or calling code contain the query. */
export function filterCountries(query: string, countries: Country[] = COUNTRIES) {
	const q = query.trim().toLowerCase().replace(/^\+/, '')
	if (!q) return countries
	return countries.filter(
		(c) =>
			c.name.toLowerCase().includes(q) || c.code.toLowerCase() === q || c.callingCode.startsWith(q),
	)
}

export type PhoneCheck = { ok: true; e164: string } | { ok: false; message: string }

/**
 * Validates `raw` against `countryCode` (libphonenumber-js, full metadata): the number must
 * be valid and belong to that country's calling code. Returns it in E.164.
 */
export function checkPhone(
	raw: string,
	countryCode: string,
	options: { restrictCharacters?: boolean; maxLength?: number } = {},
): PhoneCheck {
	const value = raw.trim()
	const maxLength = options.maxLength ?? PHONE_MAX_LENGTH
	if (value.length > maxLength)
		return { ok: false, message: `Use at most ${maxLength} characters.` }
	if (options.restrictCharacters && !PHONE_ALLOWED_CHARACTERS.test(value))
		return { ok: false, message: 'Use only digits, spaces, parentheses, plus and hyphen.' }
	const country = findCountry(countryCode)
	if (!country) return { ok: false, message: 'Choose a country.' }
	const parsed = parsePhoneNumberFromString(value, country.code)
	if (!parsed || parsed.countryCallingCode !== country.callingCode || !parsed.isValid())
		return { ok: false, message: `Enter a valid phone number for ${country.name}.` }
	return { ok: true, e164: parsed.number }
}

/** The country and national format of a stored E.164 number, for editing it. */
export function splitPhone(e164: string | null | undefined) {
	if (!e164) return null
	const parsed = parsePhoneNumberFromString(e164)
	if (!parsed) return null
	return { country: parsed.country ?? null, national: parsed.formatNational() }
}
