// Starts the production build for the browser tests on a clean embedded database.
import { rmSync } from 'node:fs'

rmSync(process.env.DATA_DIR!, { recursive: true, force: true })

// Outside services the app talks to, as local fakes.
const { startFakeApify } = await import('../fakes/apify/server.ts')
const apify = await startFakeApify({ port: Number(process.env.E2E_APIFY_PORT ?? 0) })
process.env.APIFY_BASE_URL = apify.url
process.env.APIFY_TOKEN = apify.token
const { startFakeApollo } = await import('../fakes/apollo/server.ts')
const apollo = await startFakeApollo({ port: Number(process.env.E2E_APOLLO_PORT ?? 0) })
process.env.APOLLO_BASE_URL = apollo.url
process.env.APOLLO_API_KEY = apollo.apiKey
const { startFakeOpenAI } = await import('../fakes/openai/server.ts')
const openai = await startFakeOpenAI({ port: Number(process.env.E2E_OPENAI_PORT ?? 0) })
process.env.OPENAI_BASE_URL = openai.url
process.env.OPENAI_API_KEY = openai.apiKey
await import('../../server.ts')
