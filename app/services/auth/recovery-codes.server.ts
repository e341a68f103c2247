// Two-factor recovery codes (decision 0057): ten one-time codes shown once when two-factor is
// turned on (or renewed), kept only as HMACs. One of them, at the sign-in code step, stands in
// for a lost authenticator: the lost factor is removed and the user sets up the new phone.
import { createHmac, randomInt } from 'node:crypto'
import { createCookie } from 'react-router'
import { db } from '../../../db/index.server.ts'
import { getConfig } from '../../config.server.ts'
import { openSecret, sealSecret } from '../../utils/secrets.server.ts'
import { getAuthAdmin } from './endpoint.server.ts'

export const RECOVERY_CODE_COUNT = 10

// No 0/o, 1/l/i: read off paper and typed again. 31 symbols, 10 of them: 49.5 bits a code,
// beyond guessing even with the password known, so a keyed hash (not a slow one) is enough.
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789'

function newCode() {
	let code = ''
	for (let i = 0; i < 10; i++) code += ALPHABET[randomInt(ALPHABET.length)]
	return `${code.slice(0, 5)}-${code.slice(5)}`
}

/** What people type: any case, spaces or dashes anywhere. */
export function normalizeRecoveryCode(code: string) {
	return code.toLowerCase().replace(/[\s-]/g, '')
}

function hashOf(userId: string, code: string) {
	return createHmac('sha256', getConfig().APP_SECRET)
		.update(`recovery-code:${userId}:${normalizeRecoveryCode(code)}`)
		.digest('base64url')
}

/** A new set for `userId`, replacing any earlier one; the plain codes exist only in the answer. */
export async function issueRecoveryCodes(userId: string) {
	const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode)
	await db.transaction().execute(async (trx) => {
		await trx.deleteFrom('two_factor_recovery_codes').where('user_id', '=', userId).execute()
		await trx
			.insertInto('two_factor_recovery_codes')
			.values(codes.map((code) => ({ user_id: userId, code_hash: hashOf(userId, code) })))
			.execute()
	})
	return codes
}

/** How many of the user's codes are still unused. */
export async function unusedRecoveryCodes(userId: string) {
	const row = await db
		.selectFrom('two_factor_recovery_codes')
		.select((eb) => eb.fn.countAll<number>().as('count'))
		.where('user_id', '=', userId)
		.where('used_at', 'is', null)
		.executeTakeFirst()
	return Number(row?.count ?? 0)
}

export async function deleteRecoveryCodes(userId: string) {
	await db.deleteFrom('two_factor_recovery_codes').where('user_id', '=', userId).execute()
}

/** Spends one unused code of `userId`: true once per code, false for anything else. */
export async function spendRecoveryCode(userId: string, code: string) {
	const normalized = normalizeRecoveryCode(code)
	if (!/^[a-z0-9]{10}$/.test(normalized)) return false
	const spent = await db
		.updateTable('two_factor_recovery_codes')
		.set({ used_at: new Date() })
		.where('user_id', '=', userId)
		.where('code_hash', '=', hashOf(userId, normalized))
		.where('used_at', 'is', null)
		.returning('user_id')
		.executeTakeFirst()
	return spent !== undefined
}

/**
 * Signs in with a recovery code instead of the authenticator: the code is spent, the user's
 * factors are removed through the admin API (a password-only session cannot remove a verified
 * factor, and Supabase has no recovery-code factor), and the other codes go with them: the
 * user sets two-factor up again on the new phone and gets new codes. False: wrong or used.
 */
export async function recoverWithCode(userId: string, code: string) {
	if (!(await spendRecoveryCode(userId, code))) return false
	const admin = await getAuthAdmin()
	const { data, error } = await admin.mfa.listFactors({ userId })
	if (error) throw error
	for (const factor of data.factors) {
		const removed = await admin.mfa.deleteFactor({ userId, id: factor.id })
		if (removed.error) throw removed.error
	}
	await deleteRecoveryCodes(userId)
	return true
}

// Shown once, after a redirect (the page a refresh reloads holds no codes): the new codes ride
// in a cookie sealed with APP_SECRET for this user, for ten minutes at most, and the settings
// page that shows them clears it. Path /: /settings.data (JavaScript on) is not under /settings.
const flashCookie = () =>
	createCookie('ls_recovery_codes', {
		path: '/',
		httpOnly: true,
		sameSite: 'lax',
		secure: getConfig().APP_URL.startsWith('https:'),
		maxAge: 600,
	})

/** The Set-Cookie header that carries `codes` to the next /settings page. */
export async function flashRecoveryCodes(userId: string, codes: string[]) {
	return flashCookie().serialize(sealSecret(codes.join(' '), 'recovery-codes-flash', userId))
}

/** The codes just issued to `userId`, if this request carries them, and the header clearing them. */
export async function takeRecoveryCodes(request: Request, userId: string) {
	const cookie = flashCookie()
	const sealed: unknown = await cookie.parse(request.headers.get('Cookie'))
	if (typeof sealed !== 'string' || !sealed) return null
	const clear = await cookie.serialize('', { maxAge: 0 })
	try {
		return { codes: openSecret(sealed, 'recovery-codes-flash', userId).split(' '), clear }
	} catch {
		// another user's, or an old secret's: nothing to show
		return { codes: null, clear }
	}
}
