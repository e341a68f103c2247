import { createSocket, type RemoteInfo } from 'node:dgram'
import { readFileSync } from 'node:fs'
import path from 'node:path'

/**
 * A tiny authoritative DNS server over UDP on 127.0.0.1 for tests: A, CNAME, MX and TXT
 * records from a zone object that tests may change while it runs. Unknown names answer
 * NXDOMAIN; known names without the asked type answer no data. With `zoneDir`, a name not in
 * the zone object is looked up in `<zoneDir>/<name>.json` (ZoneRecords), so another process
 * (the browser tests) can publish records one file per name, without racing each other.
 */
export type ZoneRecords = {
	A?: string[]
	CNAME?: string
	MX?: { priority: number; exchange: string }[]
	TXT?: string[]
	/** answer SERVFAIL (a broken authoritative server) */
	SERVFAIL?: boolean
	/** never answer (a resolver timeout) */
	TIMEOUT?: boolean
}
export type Zone = Record<string, ZoneRecords>

const TYPES = { A: 1, CNAME: 5, MX: 15, TXT: 16 } as const

function encodeName(name: string) {
	const parts = name
		.replace(/\.$/, '')
		.split('.')
		.filter(Boolean)
		.map((label) => {
			const bytes = Buffer.from(label, 'ascii')
			return Buffer.concat([Buffer.from([bytes.length]), bytes])
		})
	return Buffer.concat([...parts, Buffer.from([0])])
}

function readName(message: Buffer, offset: number) {
	const labels: string[] = []
	let i = offset
	while (message[i]! !== 0) {
		const length = message[i]!
		labels.push(message.subarray(i + 1, i + 1 + length).toString('ascii'))
		i += length + 1
	}
	return { name: labels.join('.').toLowerCase(), end: i + 1 }
}

function answer(type: number, rdata: Buffer) {
	const head = Buffer.alloc(12)
	head.writeUInt16BE(0xc00c, 0) // pointer to the question's name
	head.writeUInt16BE(type, 2)
	head.writeUInt16BE(1, 4) // IN
	head.writeUInt32BE(60, 6)
	head.writeUInt16BE(rdata.length, 10)
	return Buffer.concat([head, rdata])
}

function records(entry: ZoneRecords | undefined, type: number): Buffer[] {
	if (!entry) return []
	if (entry.CNAME && type !== TYPES.CNAME) return [answer(TYPES.CNAME, encodeName(entry.CNAME))]
	switch (type) {
		case TYPES.A:
			return (entry.A ?? []).map((ip) => answer(type, Buffer.from(ip.split('.').map(Number))))
		case TYPES.CNAME:
			return entry.CNAME ? [answer(type, encodeName(entry.CNAME))] : []
		case TYPES.MX:
			return (entry.MX ?? []).map((mx) => {
				const pref = Buffer.alloc(2)
				pref.writeUInt16BE(mx.priority)
				return answer(type, Buffer.concat([pref, encodeName(mx.exchange)]))
			})
		case TYPES.TXT:
			return (entry.TXT ?? []).map((text) => {
				const bytes = Buffer.from(text, 'utf8')
				const chunks: Buffer[] = []
				for (let i = 0; i < bytes.length || i === 0; i += 255) {
					const chunk = bytes.subarray(i, i + 255)
					chunks.push(Buffer.from([chunk.length]), chunk)
					if (bytes.length === 0) break
				}
				return answer(type, Buffer.concat(chunks))
			})
		default:
			return []
	}
}

function fromFile(zoneDir: string | undefined, name: string): ZoneRecords | undefined {
	if (!zoneDir || !/^[a-z0-9._-]+$/.test(name)) return undefined
	try {
		return JSON.parse(readFileSync(path.join(zoneDir, `${name}.json`), 'utf8')) as ZoneRecords
	} catch {
		return undefined
	}
}

export async function startFakeDns(zone: Zone, options: { port?: number; zoneDir?: string } = {}) {
	const socket = createSocket('udp4')
	let queries = 0
	socket.on('message', (message: Buffer, remote: RemoteInfo) => {
		queries++
		const { name, end } = readName(message, 12)
		const type = message.readUInt16BE(end)
		const question = message.subarray(12, end + 4)
		const entry = zone[name] ?? fromFile(options.zoneDir, name)
		if (entry?.TIMEOUT) return
		const answers = entry?.SERVFAIL ? [] : records(entry, type)
		const header = Buffer.alloc(12)
		message.copy(header, 0, 0, 2) // id
		const known = Boolean(entry)
		// response, recursion; NXDOMAIN when unknown, SERVFAIL when asked to
		header.writeUInt16BE(0x8180 | (entry?.SERVFAIL ? 2 : known ? 0 : 3), 2)
		header.writeUInt16BE(1, 4)
		header.writeUInt16BE(answers.length, 6)
		socket.send(Buffer.concat([header, question, ...answers]), remote.port, remote.address)
	})
	await new Promise<void>((resolve) => socket.bind(options.port ?? 0, '127.0.0.1', resolve))
	const { port } = socket.address()
	return {
		server: `127.0.0.1:${port}`,
		zone,
		queries: () => queries,
		close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
	}
}
