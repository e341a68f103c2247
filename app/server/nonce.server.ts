import { randomBytes } from 'node:crypto'

const NONCE_BYTES = 16
// One call for random bytes per 256 nonces instead of one per page: each nonce still takes 16
// bytes of its own from the system's CSPRNG, none is used twice.
const POOL_BYTES = NONCE_BYTES * 256
let pool = Buffer.alloc(0)
let offset = 0

/** A fresh CSP nonce: 16 random bytes, base64. */
export function cspNonce(): string {
	if (offset + NONCE_BYTES > pool.length) {
		pool = randomBytes(POOL_BYTES)
		offset = 0
	}
	const nonce = pool.toString('base64', offset, offset + NONCE_BYTES)
	offset += NONCE_BYTES
	return nonce
}
