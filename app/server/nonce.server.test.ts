import { expect, test } from 'vitest'
import { cspNonce } from './nonce.server.ts'

test('every nonce is 16 bytes of its own, across refills of the random pool', () => {
	const nonces = Array.from({ length: 1000 }, cspNonce)
	expect(new Set(nonces).size).toBe(1000)
	for (const nonce of nonces) expect(Buffer.from(nonce, 'base64')).toHaveLength(16)
})
