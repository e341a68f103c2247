// TOTP two-factor authentication through the official supabase-js client (auth.mfa and
// auth.admin.mfa), against the embedded service.
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { SupabaseClient } from '@supabase/supabase-js'
import { startTestAuthServer, type TestAuthServer } from './testing.server.ts'
import { totpCode, totpStep } from './totp.server.ts'

let server: TestAuthServer
let admin: SupabaseClient
const PASSWORD = 'correct horse 42'

beforeAll(async () => {
	server = await startTestAuthServer({
		AUTH_RATE_LIMIT_IP: '100000',
		AUTH_RATE_LIMIT_EMAIL: '1000',
	})
	admin = server.admin()
})
afterAll(async () => {
	await server?.close()
})

const claimsOf = (token: string) =>
	JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, any>

/** the code an authenticator app shows `offset` steps from the service's clock */
const codeFor = (secret: string, offset = 0) =>
	totpCode(secret, totpStep(server.clock.now()) + offset)

/** A browser-like client holding its session (as the app's cookies do). */
function statefulClient() {
	return server.pkceClient()
}

async function signedIn(email = `mfa-${randomUUID().slice(0, 8)}@example.com`) {
	const client = statefulClient()
	const { error } = await client.auth.signUp({ email, password: PASSWORD })
	expect(error).toBeNull()
	return { client, email }
}

async function enrolled() {
	const { client, email } = await signedIn()
	const { data, error } = await client.auth.mfa.enroll({ factorType: 'totp', issuer: 'Leadsmith' })
	expect(error).toBeNull()
	const factor = data!
	const step = totpStep(server.clock.now())
	const verified = await client.auth.mfa.challengeAndVerify({
		factorId: factor.id,
		code: totpCode(factor.totp.secret, step),
	})
	expect(verified.error).toBeNull()
	return { client, email, factorId: factor.id, secret: factor.totp.secret, step }
}

describe('TOTP factors (auth.mfa)', () => {
	test('enroll gives a QR code, secret and URI; verifying a code raises the session to aal2', async () => {
		const { client, email } = await signedIn()
		const enroll = await client.auth.mfa.enroll({
			factorType: 'totp',
			friendlyName: 'Phone',
			issuer: 'Leadsmith',
		})
		expect(enroll.error).toBeNull()
		const factor = enroll.data!
		expect(factor).toMatchObject({ type: 'totp', friendly_name: 'Phone' })
		expect(factor.totp.qr_code).toMatch(/^data:image\/svg\+xml;utf-8,<svg/)
		expect(factor.totp.secret).toMatch(/^[A-Z2-7]{32}$/)
		expect(factor.totp.uri).toBe(
			`otpauth://totp/Leadsmith:${encodeURIComponent(email)}?secret=${factor.totp.secret}&issuer=Leadsmith&algorithm=SHA1&digits=6&period=30`,
		)
		// unverified: listed, but not usable yet
		const before = await client.auth.mfa.listFactors()
		expect(before.data!.all.map((f) => [f.id, f.status])).toEqual([[factor.id, 'unverified']])
		expect(before.data!.totp).toEqual([])
		expect((await client.auth.mfa.getAuthenticatorAssuranceLevel()).data).toMatchObject({
			currentLevel: 'aal1',
			nextLevel: 'aal1',
		})

		const unixNow = () => Math.floor(server.clock.now().getTime() / 1000)
		const askedAt = unixNow()
		const challenge = await client.auth.mfa.challenge({ factorId: factor.id })
		expect(challenge.error).toBeNull()
		expect(challenge.data).toMatchObject({ type: 'totp', id: expect.any(String) })
		// five minutes from when the service answered (a second may tick over meanwhile)
		expect(challenge.data!.expires_at).toBeGreaterThanOrEqual(askedAt + 300)
		expect(challenge.data!.expires_at).toBeLessThanOrEqual(unixNow() + 300)
		const verify = await client.auth.mfa.verify({
			factorId: factor.id,
			challengeId: challenge.data!.id,
			code: codeFor(factor.totp.secret),
		})
		expect(verify.error).toBeNull()
		const claims = claimsOf(verify.data!.access_token)
		expect(claims.aal).toBe('aal2')
		expect(claims.amr.map((c: { method: string }) => c.method).sort()).toEqual(['password', 'totp'])
		const aal = await client.auth.mfa.getAuthenticatorAssuranceLevel()
		expect(aal.data).toMatchObject({ currentLevel: 'aal2', nextLevel: 'aal2' })
		const after = await client.auth.mfa.listFactors()
		expect(after.data!.totp.map((f) => [f.id, f.status])).toEqual([[factor.id, 'verified']])
		// the upgraded session keeps aal2 through refreshes
		const refreshed = await client.auth.refreshSession()
		expect(claimsOf(refreshed.data.session!.access_token).aal).toBe('aal2')
	})

	test('signing in again is aal1 with aal2 next; a wrong or reused code is refused, a fresh one passes', async () => {
		const { email, factorId, secret, step } = await enrolled()
		const client = statefulClient()
		await client.auth.signInWithPassword({ email, password: PASSWORD })
		expect((await client.auth.mfa.getAuthenticatorAssuranceLevel()).data).toMatchObject({
			currentLevel: 'aal1',
			nextLevel: 'aal2',
			currentAuthenticationMethods: [{ method: 'password', timestamp: expect.any(Number) }],
		})
		// the code that turned it on (the clock may have reached the next step since)
		const used = totpCode(secret, step)
		const wrong = String((Number(used) + 1) % 1_000_000).padStart(6, '0')
		for (const code of [wrong, used]) {
			const attempt = await client.auth.mfa.challengeAndVerify({ factorId, code })
			expect(attempt.error).toMatchObject({
				status: 422,
				code: 'mfa_verification_failed',
				message: 'Invalid TOTP code entered',
			})
		}
		// the next code an app shows (one step of drift is allowed)
		const right = await client.auth.mfa.challengeAndVerify({ factorId, code: codeFor(secret, 1) })
		expect(right.error).toBeNull()
		expect(claimsOf(right.data!.access_token).aal).toBe('aal2')
	})

	test('verifying ends the other aal1 sessions of the user', async () => {
		const { client, email } = await signedIn()
		const other = statefulClient()
		await other.auth.signInWithPassword({ email, password: PASSWORD })
		const { data } = await client.auth.mfa.enroll({ factorType: 'totp' })
		await client.auth.mfa.challengeAndVerify({
			factorId: data!.id,
			code: codeFor(data!.totp.secret),
		})
		const { error } = await other.auth.getUser()
		expect(error).toMatchObject({ name: 'AuthSessionMissingError' })
	})

	test('a challenge expires after 300 s', async () => {
		const { client, factorId, secret } = await enrolled()
		const challenge = await client.auth.mfa.challenge({ factorId })
		server.clock.advance(301)
		const late = await client.auth.mfa.verify({
			factorId,
			challengeId: challenge.data!.id,
			code: codeFor(secret),
		})
		expect(late.error).toMatchObject({ status: 422, code: 'mfa_challenge_expired' })
	})

	test('an aal1 session cannot add or remove verified factors; an aal2 one can remove them', async () => {
		const { email, factorId } = await enrolled()
		const client = statefulClient()
		await client.auth.signInWithPassword({ email, password: PASSWORD })
		const add = await client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'second' })
		expect(add.error).toMatchObject({ status: 422, code: 'insufficient_aal' })
		const remove = await client.auth.mfa.unenroll({ factorId })
		expect(remove.error).toMatchObject({ status: 422, code: 'insufficient_aal' })
		// someone else's factor id is not found
		const stranger = await signedIn()
		const foreign = await stranger.client.auth.mfa.challenge({ factorId })
		expect(foreign.error).toMatchObject({ status: 404, code: 'mfa_factor_not_found' })
		const phone = await client.auth.mfa.enroll({ factorType: 'phone', phone: '+15555550100' })
		expect(phone.error).toMatchObject({ status: 422, code: 'mfa_phone_enroll_not_enabled' })
	})

	test('an aal1 session of a user with a verified factor changes neither password nor email (insufficient_aal)', async () => {
		const { client: owner, email, secret } = await enrolled()
		const thief = statefulClient()
		await thief.auth.signInWithPassword({ email, password: PASSWORD })
		const insufficient = {
			status: 401,
			code: 'insufficient_aal',
			message: 'AAL2 session is required to update email or password when MFA is enabled.',
		}
		const password = await thief.auth.updateUser({ password: 'taken over 99' })
		expect(password.error).toMatchObject(insufficient)
		const address = await thief.auth.updateUser({ email: `thief-${randomUUID()}@example.com` })
		expect(address.error).toMatchObject(insufficient)
		// the same address, or only metadata, is no change of either
		const same = await thief.auth.updateUser({ email, data: { theme: 'dark' } })
		expect(same.error).toBeNull()
		// nothing changed: the owner's session lives on and the old password still signs in
		expect((await owner.auth.getUser()).error).toBeNull()
		const again = await statefulClient().auth.signInWithPassword({ email, password: PASSWORD })
		expect(again.error).toBeNull()
		const row = await server.db
			.selectFrom('auth.users')
			.select(['email_change', 'email_change_token_new'])
			.where('email', '=', email)
			.executeTakeFirstOrThrow()
		expect(row.email_change || null).toBeNull()
		expect(row.email_change_token_new || null).toBeNull()
		// with the code, the same session may
		const factorId = (await thief.auth.mfa.listFactors()).data!.totp[0]!.id
		const raised = await thief.auth.mfa.challengeAndVerify({ factorId, code: codeFor(secret, 1) })
		expect(raised.error).toBeNull()
		expect((await thief.auth.updateUser({ password: 'changed with code 7' })).error).toBeNull()
	})

	test('unenrolling from an aal2 session brings its next token back to aal1', async () => {
		const { client, factorId } = await enrolled()
		const { data, error } = await client.auth.mfa.unenroll({ factorId })
		expect(error).toBeNull()
		expect(data).toEqual({ id: factorId })
		const refreshed = await client.auth.refreshSession()
		const claims = claimsOf(refreshed.data.session!.access_token)
		expect(claims.aal).toBe('aal1')
		expect(claims.amr.map((c: { method: string }) => c.method)).toEqual(['password'])
		expect((await client.auth.mfa.listFactors()).data!.all).toEqual([])
	})
})

describe('admin factors (auth.admin.mfa)', () => {
	test('list and delete a user’s factors with the service-role key', async () => {
		const { client, factorId } = await enrolled()
		const userId = (await client.auth.getUser()).data.user!.id
		const listed = await admin.auth.admin.mfa.listFactors({ userId })
		expect(listed.error).toBeNull()
		expect(listed.data!.factors).toEqual([
			expect.objectContaining({ id: factorId, factor_type: 'totp', status: 'verified' }),
		])
		expect(JSON.stringify(listed.data)).not.toMatch(/secret/i)
		const removed = await admin.auth.admin.mfa.deleteFactor({ userId, id: factorId })
		expect(removed.error).toBeNull()
		// (this client version wraps the removed factor once more: data.data)
		expect(JSON.stringify(removed.data)).toContain(factorId)
		expect((await admin.auth.admin.mfa.listFactors({ userId })).data!.factors).toEqual([])
		const again = await admin.auth.admin.mfa.deleteFactor({ userId, id: factorId })
		expect(again.error).toMatchObject({ status: 404 })
		// a user key is not admin
		const notAdmin = await client.auth.admin.mfa.listFactors({ userId })
		expect(notAdmin.error).toMatchObject({ status: 403 })
	})

	test('the secret is stored encrypted', async () => {
		const { factorId, secret } = await enrolled()
		const row = await server.db
			.selectFrom('auth.mfa_factors')
			.select('secret')
			.where('id', '=', factorId)
			.executeTakeFirstOrThrow()
		expect(row.secret).toMatch(/^v1\./)
		expect(row.secret).not.toContain(secret)
	})
})
