// The ES256 signing key: generated once, stored encrypted, shared by every process.
import { afterAll, expect, test } from 'vitest'
import { db } from '#db/index.server.ts'
import { parseEnv } from '#app/config.server.ts'
import { createMailer } from '#app/services/mail/mailer.server.ts'
import { createAuthService } from './service.server.ts'
import { startTestAuthServer, type TestAuthServer } from './testing.server.ts'

const servers: TestAuthServer[] = []
afterAll(async () => {
	await Promise.all(servers.map((s) => s.close()))
})

test('processes starting together make one key, stored encrypted, and accept each other’s tokens', async () => {
	const [a, b] = await Promise.all([startTestAuthServer(), startTestAuthServer()])
	servers.push(a!, b!)
	const rows = await db.selectFrom('auth_signing_keys').selectAll().execute()
	expect(rows).toHaveLength(1)
	const row = rows[0]!
	expect(row.alg).toBe('ES256')
	expect(row.private_key).toMatch(/^v1\./)
	expect(row.private_key).not.toContain('"d"')
	expect(row.public_jwk).not.toHaveProperty('d')

	const jwksA = await (await fetch(`${a!.url}/auth/v1/.well-known/jwks.json`)).json()
	const jwksB = await (await fetch(`${b!.url}/auth/v1/.well-known/jwks.json`)).json()
	expect(jwksA).toEqual(jwksB)
	expect(jwksA.keys[0].kid).toBe(row.kid)

	const { data } = await a!
		.client()
		.auth.signUp({ email: 'shared@example.com', password: 'shared pass 1' })
	const onB = await b!.client().auth.getUser(data.session!.access_token)
	expect(onB.error).toBeNull()
	expect(onB.data.user!.email).toBe('shared@example.com')
	const refreshed = await b!
		.client()
		.auth.refreshSession({ refresh_token: data.session!.refresh_token })
	expect(refreshed.error).toBeNull()
	// the service-role key of one process is admin on the other
	const listed = await b!.admin().auth.admin.listUsers()
	expect(listed.error).toBeNull()
	const viaA = await fetch(`${b!.url}/auth/v1/admin/users`, {
		headers: { Authorization: `Bearer ${a!.service.serviceRoleKey}` },
	})
	expect(viaA.status).toBe(200)
})

test('another APP_SECRET cannot use the stored key', async () => {
	const config = parseEnv({
		...process.env,
		SMTP_URL: undefined,
		APP_SECRET: 'another-secret-another-secret-0123456789',
	})
	await expect(createAuthService({ db, config, mailer: createMailer(config, db) })).rejects.toThrow(
		/APP_SECRET/,
	)
})
