// Starts the production build for the browser tests on a clean embedded database.
import { rmSync } from 'node:fs'
import { freePort } from '../support/free-port.ts'

rmSync(process.env.DATA_DIR ?? '.data/e2e', { recursive: true, force: true })
process.env.EMBEDDED_POSTGRES_PORT ??= String(await freePort())
await import('../../server.ts')
