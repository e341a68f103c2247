import { readFileSync } from 'node:fs'
import { expect, test } from 'vitest'
import { parse } from 'yaml'
import { CONFIG_VARIABLES, parseEnv } from '../../app/config.server.ts'

// compose.yaml (docs/deploy.md) must only set variables the app validates, and its web and
// worker services must start with them: a renamed or misspelt variable fails here, not in
// someone's deployment.
type Service = {
	image?: string
	command?: string[]
	environment?: Record<string, string | number | boolean>
	healthcheck?: { disable?: boolean }
	deploy?: { replicas?: number }
	ports?: string[]
}
const compose = parse(readFileSync('compose.yaml', 'utf8'), { merge: true }) as {
	services: Record<string, Service>
	configs: Record<string, { content: string }>
}

/** ${NAME:-default} becomes the default, ${NAME:?message} and ${NAME} a stand-in value. */
function interpolate(value: string) {
	return value.replace(/\$\{(\w+)(?::?([-?])([^}]*))?\}/g, (_, name: string, kind, rest) =>
		kind === '-' ? rest : name === 'APP_SECRET' ? 's'.repeat(40) : `${name.toLowerCase()}-value`,
	)
}

const appServices = Object.entries(compose.services).filter(
	([, service]) => service.image === 'leadsmith:latest',
)

test('the app services set only validated variables, and their configuration parses', () => {
	expect(appServices.map(([name]) => name).sort()).toEqual(['web', 'worker'])
	for (const [name, service] of appServices) {
		const env = Object.fromEntries(
			Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(String(v))]),
		)
		const unknown = Object.keys(env).filter((key) => !CONFIG_VARIABLES.includes(key))
		expect(unknown, `${name} sets variables the app does not read`).toEqual([])
		const config = parseEnv(env)
		// files in the bucket, not on a container's disk
		expect(config.fileStorage).toMatchObject({
			kind: 's3',
			endpoint: 'http://minio:9000',
			bucket: 'leadsmith',
			forcePathStyle: true,
		})
		expect(config.DATABASE_URL).toMatch(/^postgres:\/\/leadsmith:.*@postgres:5432\/leadsmith$/)
	}
})

test('two web replicas without workers behind the proxy, and a worker process', () => {
	const { web, worker, proxy } = compose.services
	expect(web!.command).toEqual(['node', 'server.ts'])
	expect(web!.environment!.WORKERS).toBe('0')
	expect(web!.environment!.TRUST_PROXY).toBe('true')
	expect(web!.deploy!.replicas).toBe(2)
	expect(web!.ports).toBeUndefined()
	expect(worker!.command).toEqual(['node', 'worker.ts'])
	expect(Number(worker!.environment!.WORKERS)).toBeGreaterThan(0)
	expect(worker!.healthcheck!.disable).toBe(true)
	expect(proxy!.ports).toEqual(['8080:80'])
	expect(compose.configs.caddyfile!.content).toContain('dynamic a web 3000')
	// the image's health check asks /healthz, and the web process runs as a user, not root
	const dockerfile = readFileSync('Dockerfile', 'utf8')
	expect(dockerfile).toMatch(/HEALTHCHECK[^\n]*\n[^\n]*\/healthz/)
	expect(dockerfile).toMatch(/^USER leadsmith$/m)
})
