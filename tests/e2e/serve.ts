// Starts the production build for the browser tests on a clean embedded database.
import { rmSync } from 'node:fs'

rmSync(process.env.DATA_DIR!, { recursive: true, force: true })

// Outside services the app talks to, as local fakes.
const { startFakeApify } = await import('../fakes/apify/server.ts')
const apify = await startFakeApify({ port: Number(process.env.E2E_APIFY_PORT ?? 0) })
process.env.APIFY_BASE_URL = apify.url
process.env.APIFY_TOKEN = apify.token
await import('../../server.ts')
