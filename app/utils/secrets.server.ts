import { decrypt, encrypt } from '../auth-service/crypto.server.ts'
import { getConfig } from '../config.server.ts'

// Secrets at rest (provider keys, EmailBison keys, inbox credentials): AES-256-GCM
// with a key derived from APP_SECRET per purpose; `owner` binds a ciphertext to its
// row, so a value copied onto another row does not decrypt.

export function sealSecret(plain: string, purpose: string, owner: string) {
	return encrypt(plain, getConfig().APP_SECRET, purpose, owner)
}

export function openSecret(sealed: string, purpose: string, owner: string) {
	return decrypt(sealed, getConfig().APP_SECRET, purpose, owner)
}

/** What the browser may see of a secret: its last 4 characters. */
export function lastFour(secret: string) {
	return secret.slice(-4)
}
