import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import {
	errors as joseErrors,
	exportJWK,
	generateKeyPair,
	importJWK,
	jwtVerify,
	SignJWT,
	type CryptoKey,
	type JWK,
	type JWTPayload,
} from 'jose'
import type { Database } from '../../db/index.server.ts'
import { decrypt, encrypt } from './crypto.server.ts'
import { forbidden } from './errors.server.ts'

const ALG = 'ES256'
const PURPOSE = 'auth-signing-key'

export type PublicJwk = JWK & { kid: string; alg: string; use: 'sig'; key_ops: ['verify'] }

/**
 * The signing keys, loaded once and kept in memory: signing, verifying and the JWKS never touch
 * the database after start-up.
 */
export type KeyRing = {
	/** kid of the key that signs new tokens (the newest) */
	kid: string
	sign(claims: Record<string, unknown>): Promise<string>
	/** Verifies signature (ES256, a known kid) and expiry; throws 403 bad_jwt. */
	verify(token: string, now: Date): Promise<JWTPayload>
	jwks: { keys: PublicJwk[] }
}

/**
 * Loads the ES256 keys from auth_signing_keys, generating the first pair when there is none.
 * The private key is stored encrypted (AES-256-GCM, key derived from APP_SECRET); an advisory
 * lock keeps two processes starting together from generating two keys.
 */
export async function loadKeyRing(db: Database, secret: string): Promise<KeyRing> {
	const rows = await db.transaction().execute(async (trx) => {
		await sql`select pg_advisory_xact_lock(hashtext('auth_signing_keys'))`.execute(trx)
		const existing = await trx
			.selectFrom('auth_signing_keys')
			.selectAll()
			.orderBy('created_at', 'asc')
			.execute()
		if (existing.length > 0) return existing
		const { publicKey, privateKey } = await generateKeyPair(ALG, { extractable: true })
		const kid = randomUUID()
		const publicJwk = await exportJWK(publicKey)
		const privateJwk = await exportJWK(privateKey)
		const row = await trx
			.insertInto('auth_signing_keys')
			.values({
				kid,
				alg: ALG,
				public_jwk: JSON.stringify(publicJwk),
				private_key: encrypt(JSON.stringify(privateJwk), secret, PURPOSE, kid),
			})
			.returningAll()
			.executeTakeFirstOrThrow()
		return [row]
	})

	const verifying = new Map<string, CryptoKey>()
	const published: PublicJwk[] = []
	for (const row of rows) {
		const jwk = row.public_jwk as JWK
		const publicJwk: PublicJwk = {
			kty: jwk.kty,
			crv: jwk.crv,
			x: jwk.x,
			y: jwk.y,
			kid: row.kid,
			alg: row.alg,
			use: 'sig',
			key_ops: ['verify'],
		}
		verifying.set(row.kid, (await importJWK({ ...jwk, alg: row.alg }, row.alg)) as CryptoKey)
		published.push(publicJwk)
	}
	const newest = rows[rows.length - 1]!
	let privateJwk: JWK
	try {
		privateJwk = JSON.parse(decrypt(newest.private_key, secret, PURPOSE, newest.kid)) as JWK
	} catch (error) {
		throw new Error(
			'Cannot decrypt the auth signing key: APP_SECRET differs from the one it was stored with',
			{ cause: error },
		)
	}
	const signingKey = (await importJWK({ ...privateJwk, alg: newest.alg }, newest.alg)) as CryptoKey

	return {
		kid: newest.kid,
		jwks: { keys: published },
		sign(claims) {
			return new SignJWT(claims)
				.setProtectedHeader({ alg: newest.alg, kid: newest.kid, typ: 'JWT' })
				.sign(signingKey)
		},
		async verify(token, now) {
			try {
				const { payload } = await jwtVerify(
					token,
					(header) => {
						const key = header.kid ? verifying.get(header.kid) : undefined
						if (!key) throw new UnknownKid(header.kid, header.alg)
						return key
					},
					{ algorithms: [ALG], currentDate: now },
				)
				return payload
			} catch (error) {
				throw forbidden(
					'bad_jwt',
					`invalid JWT: unable to parse or verify signature, ${reason(error)}`,
				)
			}
		},
	}
}

class UnknownKid extends Error {
	constructor(kid: unknown, alg: unknown) {
		super(`unrecognized JWT kid ${String(kid ?? '<nil>')} for algorithm ${String(alg ?? '<nil>')}`)
	}
}

function reason(error: unknown) {
	if (error instanceof UnknownKid) return error.message
	if (error instanceof joseErrors.JWTExpired) return 'token has invalid claims: token is expired'
	if (error instanceof joseErrors.JWTClaimValidationFailed)
		return `token has invalid claims: ${error.message}`
	if (error instanceof joseErrors.JWSSignatureVerificationFailed)
		return 'token signature is invalid'
	if (error instanceof joseErrors.JOSEAlgNotAllowed)
		return 'token signature is invalid: signing method is invalid'
	if (error instanceof joseErrors.JWTInvalid || error instanceof joseErrors.JWSInvalid)
		return 'token is malformed'
	return 'token is malformed'
}
