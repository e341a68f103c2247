import { describe, expect, test } from 'vitest'
import {
	base32Decode,
	base32Encode,
	generateTotpSecret,
	matchTotp,
	qrCodeSvg,
	totpCode,
	totpStep,
	totpUri,
} from './totp.server.ts'

// RFC 6238 appendix B: the SHA-1 seed "12345678901234567890" and its 8-digit codes.
const RFC_SECRET = base32Encode(Buffer.from('12345678901234567890'))
const RFC_VECTORS: [number, string][] = [
	[59, '94287082'],
	[1111111109, '07081804'],
	[1111111111, '14050471'],
	[1234567890, '89005924'],
	[2000000000, '69279037'],
	[20000000000, '65353130'],
]

describe('TOTP (RFC 6238)', () => {
	test.each(RFC_VECTORS)('at %i s the code is %s', (seconds, code) => {
		expect(totpCode(RFC_SECRET, totpStep(new Date(seconds * 1000)), 8)).toBe(code)
	})

	test('six-digit codes match at the current step and one either side, not two', () => {
		const secret = generateTotpSecret()
		const at = new Date('2026-11-24T02:00:10Z')
		const step = totpStep(at)
		expect(matchTotp(secret, totpCode(secret, step), at)).toBe(step)
		expect(matchTotp(secret, totpCode(secret, step - 1), at)).toBe(step - 1)
		expect(matchTotp(secret, totpCode(secret, step + 1), at)).toBe(step + 1)
		expect(matchTotp(secret, totpCode(secret, step + 2), at)).toBeNull()
		expect(matchTotp(secret, totpCode(secret, step - 2), at)).toBeNull()
		expect(matchTotp(secret, 'abcdef', at)).toBeNull()
	})

	test('secrets are 160 bits in base32 and round-trip', () => {
		const secret = generateTotpSecret()
		expect(secret).toMatch(/^[A-Z2-7]{32}$/)
		expect(base32Decode(secret)).toHaveLength(20)
		expect(base32Encode(base32Decode(secret))).toBe(secret)
	})

	test('the otpauth URI and its QR code', () => {
		const uri = totpUri('JBSWY3DPEHPK3PXP', 'Leadsmith', 'ada@example.com')
		expect(uri).toBe(
			'otpauth://totp/Leadsmith:ada%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Leadsmith&algorithm=SHA1&digits=6&period=30',
		)
		expect(qrCodeSvg(uri)).toMatch(/^<svg[\s\S]*<\/svg>$/)
	})
})
