// Issue 15, point 4: a start that cannot work says why, in one sentence with the fix, and exits 1.
import net from 'node:net'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { freePort } from '../support/free-port.ts'
import { startProcess } from './support/lifecycle.ts'

let taken: net.Server
let takenPort: number
beforeAll(async () => {
	taken = net.createServer()
	await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
	takenPort = (taken.address() as net.AddressInfo).port
})
afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())))

test('the web port in use: the sentence names the port and the fix', async () => {
	const app = startProcess('server.ts', {
		DATABASE_URL: process.env.DATABASE_URL!,
		PORT: String(takenPort),
	})
	expect(await app.exited).toBe(1)
	expect(app.output()).toContain(
		`Port ${takenPort} is already in use by another program (another Leadsmith still running?): stop that program or set PORT to a free port.`,
	)
	expect(app.output()).not.toMatch(/^undefined$|\n\s+at /m)
}, 90_000)

test('a DATABASE_URL nothing answers: the sentence names the address (never the password) and the fix', async () => {
	const port = await freePort()
	const app = startProcess('worker.ts', {
		DATABASE_URL: `postgres://app:secret-password@127.0.0.1:${port}/leadsmith`,
	})
	expect(await app.exited).toBe(1)
	expect(app.output()).toContain(
		`Cannot reach the database at 127.0.0.1:${port}/leadsmith (nothing listens there): check DATABASE_URL and that PostgreSQL is running there.`,
	)
	expect(app.output()).not.toContain('secret-password')
}, 60_000)
