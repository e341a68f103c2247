// A local fake of a public IP-to-country lookup (ipapi.co's /json/ shape: country_code,
// country_name). Answers GET /ip-country/json/ with `country` (default GB). Tests vary one
// request with headers: x-fake-country: <code> or x-fake-status: <http status>.
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export type FakeIpCountry = { url: string; calls: number; close(): Promise<void> }

export async function startFakeIpCountry(
	options: { port?: number; country?: string } = {},
): Promise<FakeIpCountry> {
	const state = { calls: 0 }
	const server = http.createServer((req, res) => {
		const cors = {
			'Access-Control-Allow-Origin': '*',
			'Access-Control-Allow-Headers': 'x-fake-country, x-fake-status, accept',
		}
		if (req.method === 'OPTIONS') {
			res.writeHead(204, cors).end()
			return
		}
		if (req.method !== 'GET' || !req.url?.startsWith('/ip-country/json')) {
			res.writeHead(404, cors).end()
			return
		}
		state.calls++
		const status = Number(req.headers['x-fake-status'] ?? 200)
		if (status !== 200) {
			res.writeHead(status, { ...cors, 'Content-Type': 'application/json' })
			res.end(JSON.stringify({ error: true, reason: 'RateLimited' }))
			return
		}
		const country = String(req.headers['x-fake-country'] ?? options.country ?? 'GB')
		res.writeHead(200, { ...cors, 'Content-Type': 'application/json' })
		res.end(JSON.stringify({ ip: '203.0.113.7', country_code: country, country: country }))
	})
	await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve))
	const { port } = server.address() as AddressInfo
	return {
		url: `http://127.0.0.1:${port}/ip-country/json/`,
		get calls() {
			return state.calls
		},
		close: () => new Promise((resolve) => server.close(() => resolve())),
	}
}
