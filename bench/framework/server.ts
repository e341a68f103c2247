// The framework ceiling's server: React Router's own Express adapter and static files, as
// React Router's Express template has it; no other middleware.
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { createRequestHandler } from '@react-router/express'
import express from 'express'
import type { ServerBuild } from 'react-router'

const dir = path.join(import.meta.dirname, 'build')
const build = (await import(pathToFileURL(path.join(dir, 'server/index.js')).href)) as ServerBuild
const app = express()
app.disable('x-powered-by')
app.use(
	'/assets',
	express.static(path.join(dir, 'client/assets'), { immutable: true, maxAge: '1y' }),
)
app.use(express.static(path.join(dir, 'client'), { maxAge: '1h', index: false }))
app.all('/{*splat}', createRequestHandler({ build, mode: 'production' }))
const port = Number(process.env.PORT ?? 3000)
app.listen(port, '127.0.0.1', () => console.log(`framework ceiling at http://127.0.0.1:${port}`))
// a normal exit, so that `--cpu-prof` (BENCH_CEILING_FLAGS) writes its profile
process.on('SIGTERM', () => process.exit(0))
