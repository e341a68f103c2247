import { readFile } from 'node:fs/promises'
import pg from 'pg'
import { expect, test } from 'vitest'
import { isDatabaseConnectionError } from './errors.ts'

test('a Unix socket with no server behind it is a connection error; any other missing file is not', async () => {
	const client = new pg.Client({ host: '/tmp/leadsmith-no-such-socket-dir', port: 5432 })
	const connecting = await client.connect().then(
		() => null,
		(error: unknown) => error,
	)
	expect(connecting).toMatchObject({ code: 'ENOENT', syscall: 'connect' })
	expect(isDatabaseConnectionError(connecting)).toBe(true)

	const reading = await readFile('/tmp/leadsmith-no-such-file').catch((error: unknown) => error)
	expect(reading).toMatchObject({ code: 'ENOENT' })
	expect(isDatabaseConnectionError(reading)).toBe(false)
})
