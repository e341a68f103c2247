import dns, { type LookupAddress, type LookupOptions } from 'node:dns'
import { BlockList, isIP } from 'node:net'
import type { Agent } from 'undici'
import type * as Undici from 'undici'
import { getConfig } from '../config.server.ts'
import { singleton } from '../utils/singleton.server.ts'

// Requests to URLs that users set (their EmailBison instance, an OpenAI-compatible base URL)
// go out through this module: unless ALLOW_PRIVATE_URLS, they connect only to public
// addresses, checked on the address actually connected to (a custom DNS lookup and a check of
// the connected socket, so DNS rebinding and IP literals in any spelling are caught), and they
// never follow redirects. The platform's own URLs (OPENAI_BASE_URL, APIFY_BASE_URL... from the
// environment) are trusted and do not come here. docs/decisions/0024-threat-model.md

/** The one message for every failure to reach a URL a user set: refused, timed out, TLS or blocked alike. */
export const COULD_NOT_CONNECT = 'Could not connect to that URL.'

/** A user-set URL led to an internal address: nothing was sent. */
export class BlockedAddressError extends Error {
	readonly code = 'ERR_BLOCKED_ADDRESS'
	readonly address: string
	constructor(address: string) {
		super(`${address} is not a public address`)
		this.name = 'BlockedAddressError'
		this.address = address
	}
}

const internal = new BlockList()
for (const [network, prefix] of [
	['0.0.0.0', 8], // "this network", unspecified
	['10.0.0.0', 8],
	['100.64.0.0', 10], // CGNAT
	['127.0.0.0', 8],
	['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
	['172.16.0.0', 12],
	['192.0.0.0', 24], // IETF protocol assignments
	['192.168.0.0', 16],
	['198.18.0.0', 15], // benchmarking
	['224.0.0.0', 4], // multicast
	['240.0.0.0', 4], // reserved, broadcast
] as const)
	internal.addSubnet(network, prefix, 'ipv4')
for (const [network, prefix] of [
	['::', 128], // unspecified
	['::1', 128],
	['fc00::', 7], // unique local
	['fe80::', 10], // link-local
	['fec0::', 10], // old site-local
	['ff00::', 8], // multicast
] as const)
	internal.addSubnet(network, prefix, 'ipv6')
// ::ffff:a.b.c.d (IPv4-mapped) is matched against the IPv4 ranges by BlockList itself.

/** The IPv4 address inside a NAT64 (64:ff9b::/96) or IPv4-compatible (::a.b.c.d) address. */
function embeddedIPv4(address: string) {
	const match = /^(?:64:ff9b::|::)(?:ffff:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address)
	if (match) {
		const high = parseInt(match[1]!, 16)
		const low = parseInt(match[2]!, 16)
		return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`
	}
	const dotted = /^(?:64:ff9b::|::)(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
	return dotted?.[1] ?? null
}

/** False for loopback, private, CGNAT, link-local, unspecified, multicast and unique-local addresses, in any IPv6 wrapping. */
export function isPublicAddress(address: string) {
	const ip = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '')
	const family = isIP(ip)
	if (family === 4) return !internal.check(ip, 'ipv4')
	if (family !== 6) return false
	if (internal.check(ip, 'ipv6')) return false
	const v4 = embeddedIPv4(ip)
	return v4 ? !internal.check(v4, 'ipv4') : true
}

/** Private addresses allowed (local development, tests): ALLOW_PRIVATE_URLS. */
function privateAllowed() {
	return getConfig().ALLOW_PRIVATE_URLS
}

/**
 * For a form: a reason to refuse a URL whose host is visibly internal (an IP literal in any
 * spelling the URL parser accepts, or localhost). Host names are checked when connecting.
 */
export function internalUrlReason(value: string): string | null {
	if (privateAllowed()) return null
	let host: string
	try {
		host = new URL(value.trim()).hostname.toLowerCase()
	} catch {
		return null
	}
	const bare = host.replace(/^\[|\]$/g, '')
	const internalHost =
		bare === 'localhost' || bare.endsWith('.localhost') || (isIP(bare) && !isPublicAddress(bare))
	return internalHost ? 'Enter a public URL: private and internal addresses are not allowed.' : null
}

type LookupCallback = (
	error: NodeJS.ErrnoException | null,
	address: string | LookupAddress[],
	family?: number,
) => void

/** dns.lookup that refuses a name when any of its addresses is internal. */
function publicLookup(hostname: string, options: LookupOptions, callback: LookupCallback) {
	dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
		if (error) return callback(error, [])
		const blocked = addresses.find((a) => !isPublicAddress(a.address))
		if (blocked) return callback(new BlockedAddressError(blocked.address), [])
		if (options.all) return callback(null, addresses)
		const first = addresses[0]
		if (!first) return callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }), [])
		callback(null, first.address, first.family)
	})
}

function publicOnlyAgent({ Agent, buildConnector }: typeof Undici) {
	const connect = buildConnector({ lookup: publicLookup, timeout: 10_000 })
	return new Agent({
		connect(options, callback) {
			// an IP literal is never looked up: check it here
			if (isIP(options.hostname.replace(/^\[|\]$/g, '')) && !isPublicAddress(options.hostname))
				return callback(new BlockedAddressError(options.hostname), null)
			connect(options, (error, socket) => {
				if (error) return callback(error, null)
				// the address actually connected to, whatever resolved it
				const remote = socket!.remoteAddress
				if (!remote || !isPublicAddress(remote)) {
					socket!.destroy()
					return callback(new BlockedAddressError(remote ?? 'unknown'), null)
				}
				callback(null, socket!)
			})
		},
	})
}

/**
 * fetch for URLs a user set: public addresses only (unless ALLOW_PRIVATE_URLS) and no
 * redirects, so a stored key goes to the URL it was saved with and nowhere else.
 */
export const userUrlFetch: typeof fetch = async (input, init) => {
	// loaded at the first such request, not with every page (decision 0055)
	const undici = await import('undici')
	const dispatcher: Agent | undefined = privateAllowed()
		? undefined
		: singleton('public-only-agent', () => publicOnlyAgent(undici))
	return (await undici.fetch(input as Parameters<typeof undici.fetch>[0], {
		...(init as Parameters<typeof undici.fetch>[1]),
		redirect: 'error',
		...(dispatcher ? { dispatcher } : {}),
	})) as unknown as Response
}

/** The request was stopped by the guard (somewhere in its cause chain). */
export function isBlockedAddress(error: unknown): boolean {
	for (let e = error, depth = 0; e && depth < 6; depth++) {
		if (e instanceof BlockedAddressError) return true
		if ((e as { code?: string }).code === 'ERR_BLOCKED_ADDRESS') return true
		e = (e as { cause?: unknown }).cause
	}
	return false
}
