import { Resolver } from 'node:dns/promises'
import { isIP } from 'node:net'
import { sql, type Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { getConfig } from '../../config.server.ts'
import { enqueue } from '../../jobs/enqueue.server.ts'
import type { DnsResult } from './domains.server.ts'
import { invalidateForwarding } from './forwarding-cache.server.ts'

/** Where a forwarded domain's apex must point: FORWARDING_TARGET, else APP_URL's host. */
export function forwardingTarget() {
	const config = getConfig()
	return config.FORWARDING_TARGET ?? new URL(config.APP_URL).hostname
}

/** The DNS record that points a domain at the app (shown on /url-forward). */
export function forwardingRecord(domain: string) {
	const target = forwardingTarget()
	const type = isIP(target) === 6 ? 'AAAA' : isIP(target) ? 'A' : 'CNAME (or ALIAS at the apex)'
	return { host: domain, type, value: target }
}

/**
 * The TXT record that proves control of a domain's DNS: a per-domain (so per-account) token,
 * under its own name so it fits beside a CNAME at the apex. Pointing the domain at the app is
 * no proof: a shared IP or a name pointed here before its owner imported it would let whoever
 * imports it first take it.
 */
export function verificationRecord(domain: string, token: string) {
	return { host: `_leadsmith-verify.${domain}`, type: 'TXT', value: `leadsmith-verify=${token}` }
}

function resolver() {
	const r = new Resolver({ timeout: 2000, tries: 2 })
	const servers = getConfig().DNS_SERVERS
	if (servers?.length) r.setServers(servers)
	return r
}

const EMPTY = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN', 'ENONAME'])

/** A lookup whose "no such record" answers are an empty list; other failures are reported. */
async function look<T>(errors: string[], what: string, run: () => Promise<T[]>): Promise<T[]> {
	try {
		return await run()
	} catch (error) {
		const code = (error as { code?: string }).code ?? 'ERROR'
		if (!EMPTY.has(code)) errors.push(`${what}: ${code}`)
		return []
	}
}

/**
 * MX, SPF, DMARC and the forwarding record of one domain, through DNS_SERVERS (or the system's),
 * and with `token` whether its verification TXT record is there.
 */
export async function checkDomainDns(name: string, token?: string): Promise<DnsResult> {
	const r = resolver()
	const errors: string[] = []
	const target = forwardingTarget()
	const proof = token ? verificationRecord(name, token) : null
	const [mx, txt, dmarcTxt, proofTxt] = await Promise.all([
		look(errors, 'MX', () => r.resolveMx(name)),
		look(errors, 'TXT', () => r.resolveTxt(name)),
		look(errors, 'DMARC', () => r.resolveTxt(`_dmarc.${name}`)),
		proof ? look(errors, 'Verification TXT', () => r.resolveTxt(proof.host)) : [],
	])
	const joined = (records: string[][]) => records.map((chunks) => chunks.join(''))
	const spf = joined(txt).find((t) => /^v=spf1(\s|$)/i.test(t)) ?? null
	const dmarc = joined(dmarcTxt).find((t) => /^v=DMARC1(;|\s|$)/i.test(t)) ?? null
	let found: string[]
	let ok: boolean
	if (isIP(target)) {
		found = await look(errors, 'A', () =>
			isIP(target) === 6 ? r.resolve6(name) : r.resolve4(name),
		)
		ok = found.includes(target)
	} else {
		const cname = await look(errors, 'CNAME', () => r.resolveCname(name))
		const a = cname.length ? [] : await look(errors, 'A', () => r.resolve4(name))
		const targetA =
			cname.length || !a.length ? [] : await look(errors, 'A', () => r.resolve4(target))
		found = [...cname, ...a]
		ok =
			cname.some((c) => c.toLowerCase().replace(/\.$/, '') === target) ||
			a.some((ip) => targetA.includes(ip))
	}
	return {
		mx: mx.sort((x, y) => x.priority - y.priority).map((m) => `${m.priority} ${m.exchange}`),
		spf,
		dmarc,
		forwarding: { ok, found },
		...(proof
			? { verification: { ok: joined(proofTxt).some((t) => t.trim() === proof.value) } }
			: {}),
		errors,
	}
}

const BATCH = 100

/** Marks domains pending and queues their check, in the caller's transaction. */
export async function queueDnsChecks(trx: Kysely<DB>, domainIds: string[]) {
	await trx
		.updateTable('domains')
		.set({ dns: sql`coalesce(dns, '{}'::jsonb) || '{"pending": true}'::jsonb` })
		.where('id', 'in', domainIds)
		.execute()
	for (let i = 0; i < domainIds.length; i += BATCH) {
		await enqueue('dns-check', { domainIds: domainIds.slice(i, i + BATCH) }, { db: trx })
	}
}

/**
 * The dns-check job: checks each domain and stores the result and its time (idempotent). A domain
 * whose verification TXT record is found is verified, and from then on forwards (it stays
 * verified when the record goes); the same name held by another account stops being verified:
 * the latest proof of control wins.
 */
export async function runDnsChecks(domainIds: string[], db: Kysely<DB> = defaultDb) {
	const rows = await db
		.selectFrom('domains')
		.select(['id', 'name', 'verification_token'])
		.where('id', 'in', domainIds)
		.execute()
	let verified = false
	for (const row of rows) {
		const result = await checkDomainDns(row.name, row.verification_token)
		await db.transaction().execute(async (trx) => {
			if (result.verification?.ok) {
				// one verification of a name at a time (the unique index allows one verified row)
				await sql`select pg_advisory_xact_lock(hashtext(${`domain_verify:${row.name}`}))`.execute(
					trx,
				)
				await trx
					.updateTable('domains')
					.set({ verified_at: null, updated_at: new Date() })
					.where('name', '=', row.name)
					.where('id', '!=', row.id)
					.where('verified_at', 'is not', null)
					.execute()
				verified = true
			}
			await trx
				.updateTable('domains')
				.set((eb) => ({
					dns: JSON.stringify(result),
					dns_checked_at: new Date(),
					...(result.verification?.ok
						? { verified_at: eb.fn.coalesce('verified_at', sql<Date>`now()`) }
						: {}),
				}))
				.where('id', '=', row.id)
				.execute()
		})
	}
	// this process's forwarding table is reloaded at once (others hear NOTIFY)
	if (verified) invalidateForwarding()
	return rows.length
}
