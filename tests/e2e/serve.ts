// Starts the production build for the browser tests on a clean embedded database.
import { rmSync } from 'node:fs'

rmSync(process.env.DATA_DIR!, { recursive: true, force: true })
await import('../../server.ts')
