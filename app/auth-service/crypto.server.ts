import {
	createCipheriv,
	createDecipheriv,
	createHash,
	hkdfSync,
	randomBytes,
	randomInt,
	timingSafeEqual,
} from 'node:crypto'

/** Supabase's token hash: hex(sha224(email + otp)). */
export function tokenHash(email: string, otp: string) {
	return createHash('sha224')
		.update(email + otp)
		.digest('hex')
}

/** A numeric one-time code, as in the emails (`{{ .Token }}`). */
export function generateOtp(length = 6) {
	let otp = ''
	for (let i = 0; i < length; i++) otp += String(randomInt(0, 10))
	return otp
}

/** An opaque refresh token: 192 random bits, URL safe. */
export function generateRefreshToken() {
	return randomBytes(24).toString('base64url')
}

/** A random password for users created without one (invites, magic-link sign-ups). */
export function generatePassword() {
	return randomBytes(32).toString('base64url')
}

export function safeEqual(a: string, b: string) {
	const left = Buffer.from(a)
	const right = Buffer.from(b)
	return left.length === right.length && timingSafeEqual(left, right)
}

/** base64url(sha256(verifier)), RFC 7636 S256. */
export function s256(verifier: string) {
	return createHash('sha256').update(verifier).digest('base64url')
}

function encryptionKey(secret: string, purpose: string) {
	return Buffer.from(hkdfSync('sha256', secret, 'leadsmith', purpose, 32))
}

/**
 * AES-256-GCM with a key derived (HKDF-SHA256) from APP_SECRET for `purpose`; `aad` binds the
 * ciphertext to its row. Output: `v1.<iv>.<tag>.<ciphertext>` in base64url.
 */
export function encrypt(plain: string, secret: string, purpose: string, aad: string) {
	const iv = randomBytes(12)
	const cipher = createCipheriv('aes-256-gcm', encryptionKey(secret, purpose), iv)
	cipher.setAAD(Buffer.from(aad))
	const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
	const parts = [iv, cipher.getAuthTag(), data].map((b) => b.toString('base64url'))
	return `v1.${parts.join('.')}`
}

export function decrypt(sealed: string, secret: string, purpose: string, aad: string) {
	const [version, iv, tag, data] = sealed.split('.')
	if (version !== 'v1' || !iv || !tag || data === undefined)
		throw new Error('unknown ciphertext format')
	const decipher = createDecipheriv(
		'aes-256-gcm',
		encryptionKey(secret, purpose),
		Buffer.from(iv, 'base64url'),
	)
	decipher.setAAD(Buffer.from(aad))
	decipher.setAuthTag(Buffer.from(tag, 'base64url'))
	return Buffer.concat([
		decipher.update(Buffer.from(data, 'base64url')),
		decipher.final(),
	]).toString('utf8')
}
