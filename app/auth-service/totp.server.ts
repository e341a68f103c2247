// TOTP (RFC 6238 over RFC 4226 HOTP): HMAC-SHA1, 6 digits, 30-second steps, as authenticator
// apps and Supabase Auth use them.
import { createHmac, randomBytes } from 'node:crypto'
import { renderSVG } from 'uqr'

export const TOTP_PERIOD_SECONDS = 30
export const TOTP_DIGITS = 6
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

export function base32Encode(bytes: Uint8Array) {
	let bits = 0
	let value = 0
	let out = ''
	for (const byte of bytes) {
		value = (value << 8) | byte
		bits += 8
		while (bits >= 5) {
			out += BASE32[(value >>> (bits - 5)) & 31]
			bits -= 5
		}
	}
	if (bits > 0) out += BASE32[(value << (5 - bits)) & 31]
	return out
}

export function base32Decode(text: string) {
	const clean = text.replace(/[\s=-]/g, '').toUpperCase()
	const bytes: number[] = []
	let bits = 0
	let value = 0
	for (const char of clean) {
		const index = BASE32.indexOf(char)
		if (index < 0) throw new Error('not base32')
		value = (value << 5) | index
		bits += 5
		if (bits >= 8) {
			bytes.push((value >>> (bits - 8)) & 255)
			bits -= 8
		}
	}
	return Buffer.from(bytes)
}

/** A new shared secret: 160 random bits (RFC 4226's recommended length), base32. */
export function generateTotpSecret() {
	return base32Encode(randomBytes(20))
}

/** The time step a moment falls in. */
export function totpStep(at: Date) {
	return Math.floor(at.getTime() / 1000 / TOTP_PERIOD_SECONDS)
}

/** HOTP(secret, step) with `digits` digits (RFC 4226 dynamic truncation). */
export function totpCode(secret: string, step: number, digits = TOTP_DIGITS) {
	const counter = Buffer.alloc(8)
	counter.writeBigUInt64BE(BigInt(step))
	const hmac = createHmac('sha1', base32Decode(secret)).update(counter).digest()
	const offset = hmac[hmac.length - 1]! & 0xf
	const binary = hmac.readUInt32BE(offset) & 0x7fffffff
	return String(binary % 10 ** digits).padStart(digits, '0')
}

/**
 * The step whose code `code` is, at `at` or one step either side (clock drift), or null. Every
 * candidate is computed, so the time taken does not tell which one matched.
 */
export function matchTotp(secret: string, code: string, at: Date): number | null {
	if (!/^\d{6}$/.test(code)) return null
	const now = totpStep(at)
	let matched: number | null = null
	for (const step of [now - 1, now, now + 1]) {
		if (totpCode(secret, step) === code && matched === null) matched = step
	}
	return matched
}

/** The otpauth:// URI authenticator apps read from the QR code. */
export function totpUri(secret: string, issuer: string, account: string) {
	const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`
	const params = new URLSearchParams({
		secret,
		issuer,
		algorithm: 'SHA1',
		digits: String(TOTP_DIGITS),
		period: String(TOTP_PERIOD_SECONDS),
	})
	return `otpauth://totp/${label}?${params}`
}

/** The URI as a QR code, an SVG document (Supabase's `totp.qr_code`). */
export function qrCodeSvg(text: string) {
	return renderSVG(text, { ecc: 'M', border: 2 })
}
