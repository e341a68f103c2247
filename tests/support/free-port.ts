import { readFileSync } from 'node:fs'
import net from 'node:net'

// Ports from listen(0) come from the kernel's ephemeral range, the same range every outgoing
// connection's source port comes from. A port found free that way and handed to a process
// that binds it seconds later (PostgreSQL after initdb, a server after its build) can be taken
// meanwhile by any connection of any test running beside it: CI saw exactly that. So tests
// pick below the ephemeral range, where only another picker could land, and check by binding;
// above the browser suite's fixed ports (4310 and 25399, +37..47 for keyed servers), which may
// start while Vitest runs beside it.
const [ephemeralLow] = ephemeralRange()
const LOW = 26_000
const HIGH = Math.min(ephemeralLow, 32_768)

export async function freePort(): Promise<number> {
	for (let attempt = 0; attempt < 50; attempt++) {
		const port = LOW + Math.floor(Math.random() * (HIGH - LOW))
		if (await canBind(port)) return port
	}
	throw new Error(`no free port found between ${LOW} and ${HIGH}`)
}

function canBind(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const server = net.createServer()
		server.unref()
		server.once('error', () => resolve(false))
		server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
			server.close(() => resolve(true))
		})
	})
}

function ephemeralRange(): [number, number] {
	try {
		const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
			.trim()
			.split(/\s+/)
			.map(Number)
		if (low && high && low > LOW + 1000) return [low, high]
	} catch {
		// not Linux: the IANA range starts at 49152
	}
	return [49_152, 65_535]
}
