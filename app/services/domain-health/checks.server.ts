import type { DnsClient, Answer } from './dns.server.ts'
import {
	CHECK_LABELS,
	summarise,
	type CheckKey,
	type HealthCheck,
	type HealthReport,
} from './report.ts'

export type InboxProvider = 'google' | 'microsoft'

/** What a domain's check needs besides its name: who hosts its inboxes and its DKIM selector. */
export type DomainContext = { provider?: InboxProvider | null; dkimSelector?: string | null }

export const PROVIDERS: Record<
	InboxProvider,
	{
		name: string
		spfInclude: string
		selectors: string[]
		mx: (domain: string) => string
		/** its MX hosts (Google's older aspmx.l.google.com included) */
		mxHost: RegExp
	}
> = {
	google: {
		name: 'Google Workspace',
		spfInclude: '_spf.google.com',
		selectors: ['google'],
		mx: () => '1 smtp.google.com',
		mxHost: /(^|\.)(google|googlemail)\.com\.?$/i,
	},
	microsoft: {
		name: 'Microsoft 365',
		spfInclude: 'spf.protection.outlook.com',
		selectors: ['selector1', 'selector2'],
		mx: (domain) => `0 ${domain.replace(/\./g, '-')}.mail.protection.outlook.com`,
		mxHost: /\.(mail\.protection\.outlook\.com|mx\.microsoft)\.?$/i,
	},
}

/** RFC 7208 4.6.4: at most 10 terms that cause DNS lookups, counted through includes. */
export const SPF_LOOKUP_LIMIT = 10

const failed = (a: Answer<unknown>): a is { ok: false; code: string } => !a.ok

function check(
	key: CheckKey,
	rest: Omit<HealthCheck, 'key' | 'label' | 'details'> & { details?: string[] },
): HealthCheck {
	return { key, label: CHECK_LABELS[key], details: [], ...rest }
}

function couldNotCheck(key: CheckKey, code: string, what: string): HealthCheck {
	return check(key, {
		status: 'unknown',
		summary: `Could not check: the DNS lookup of ${what} failed (${code}). This says nothing about the record; check again.`,
	})
}

async function mxCheck(dns: DnsClient, domain: string, ctx: DomainContext) {
	const answer = await dns.mx(domain)
	if (failed(answer)) return { result: couldNotCheck('mx', answer.code, 'MX records'), hosts: [] }
	const records = answer.records.toSorted((a, b) => a.priority - b.priority)
	const provider = ctx.provider ? PROVIDERS[ctx.provider] : null
	const fix = {
		action: 'add' as const,
		host: '@',
		type: 'MX',
		value: provider ? provider.mx(domain) : '10 <your mail provider’s MX host>',
	}
	const details = records.map((r) => `${r.priority} ${r.exchange || '.'}`)
	// a null MX (RFC 7505): one record "0 ." that says the domain takes no mail
	if (records.some((r) => r.exchange === '' || r.exchange === '.'))
		return {
			result: check('mx', {
				status: 'fail',
				summary:
					'The domain says it receives no mail (a “null MX”). Replies and bounces are lost and receivers distrust its mail.',
				details,
				fix: { ...fix, action: 'change' },
			}),
			hosts: [],
		}
	if (!records.length)
		return {
			result: check('mx', {
				status: 'fail',
				summary: 'No mail server is set for the domain, so replies cannot reach it.',
				fix,
			}),
			hosts: [],
		}
	const hosts = records.map((r) => r.exchange)
	// the inboxes are at the provider but mail for the domain goes elsewhere: replies miss them
	if (provider && !hosts.some((h) => provider.mxHost.test(h)))
		return {
			result: check('mx', {
				status: 'warn',
				summary: `The domain’s mail servers are not ${provider.name}’s, where its inboxes are, so replies may never reach them.`,
				details,
				fix: { ...fix, action: 'change' },
			}),
			hosts,
		}
	return {
		result: check('mx', { status: 'pass', summary: 'Mail servers are set.', details }),
		hosts,
	}
}

type SpfWalk = {
	lookups: number
	includes: Set<string>
	loop?: string
	broken?: string
	unknown?: string
}

const LOOKUP_TERM = /^[+?~-]?(include:|a$|a[:/]|mx$|mx[:/]|ptr$|ptr:|exists:|redirect=)/i

/** The SPF records among a name's TXT records. */
const spfRecords = (texts: string[]) => texts.filter((t) => /^v=spf1(\s|$)/i.test(t.trim()))

/**
 * A record's DNS-querying terms, in order: the include:/redirect= target (lower case), or null
 * for a/mx/ptr/exists. Remembered per record text: a run walks the same shared records
 * (`_spf.google.com`) for every domain, and parsing them again is most of a walk's CPU.
 */
const spfTerms = new Map<string, (string | null)[]>()
function lookupTerms(record: string) {
	let terms = spfTerms.get(record)
	if (!terms) {
		terms = []
		for (const term of record.trim().split(/\s+/).slice(1))
			if (LOOKUP_TERM.test(term))
				terms.push(/^[+?~-]?(?:include:|redirect=)(.+)$/i.exec(term)?.[1]?.toLowerCase() ?? null)
		if (spfTerms.size >= 10_000) spfTerms.clear() // bounded: a long-lived worker sees many
		spfTerms.set(record, terms)
	}
	return terms
}

/**
 * Counts the DNS-querying terms of an SPF record, following include: and redirect= through
 * their own records (depth first), stopping past the limit; a name met again on its own path is
 * a loop. A failed lookup of an included record leaves the count unknown.
 */
async function walkSpf(dns: DnsClient, record: string, walk: SpfWalk, path: string[]) {
	for (const target of lookupTerms(record)) {
		walk.lookups++
		if (walk.lookups > SPF_LOOKUP_LIMIT + 1) return
		if (!target) continue
		walk.includes.add(target)
		if (target.includes('%{')) continue // a macro: known only when mail is checked
		if (path.includes(target)) {
			walk.loop = [...path, target].join(' → ')
			return
		}
		const answer = await dns.txt(target)
		if (failed(answer)) {
			walk.unknown = `${target} (${answer.code})`
			return
		}
		const found = spfRecords(answer.records)
		if (found.length !== 1) {
			walk.broken = `${target} has ${found.length === 0 ? 'no' : found.length} SPF records`
			continue
		}
		path.push(target)
		await walkSpf(dns, found[0]!, walk, path)
		path.pop()
		if (walk.loop || walk.unknown) return
	}
}

/** The record with the provider's include and a soft fail at the end (the suggested fix). */
function mendedSpf(record: string | null, include: string | null) {
	const terms = (record ?? 'v=spf1').trim().split(/\s+/)
	const kept = terms.filter((t, i) => i === 0 || !/^[+?~-]?all$/i.test(t))
	if (include && !kept.some((t) => t.toLowerCase() === `include:${include}`))
		kept.splice(1, 0, `include:${include}`)
	const strict = terms.some((t) => t.toLowerCase() === '-all')
	return [...kept, strict ? '-all' : '~all'].join(' ')
}

async function spfCheck(dns: DnsClient, domain: string, ctx: DomainContext): Promise<HealthCheck> {
	const answer = await dns.txt(domain)
	if (failed(answer)) return couldNotCheck('spf', answer.code, 'TXT records')
	const records = spfRecords(answer.records)
	const provider = ctx.provider ? PROVIDERS[ctx.provider] : null
	const include = provider?.spfInclude ?? null
	if (!records.length)
		return check('spf', {
			status: 'fail',
			summary: 'No SPF record: receivers cannot tell which servers may send for the domain.',
			fix: { action: 'add', host: '@', type: 'TXT', value: mendedSpf(null, include) },
		})
	if (records.length > 1)
		return check('spf', {
			status: 'fail',
			summary: `The domain has ${records.length} SPF records; receivers treat that as no SPF at all. Keep one.`,
			details: records,
			fix: {
				action: 'change',
				host: '@',
				type: 'TXT',
				value: mendedSpf(records.join(' ').replace(/\s+v=spf1/gi, ''), include),
			},
		})
	const record = records[0]!
	const walk: SpfWalk = { lookups: 0, includes: new Set() }
	await walkSpf(dns, record, walk, [domain.toLowerCase()])
	const details = [record]
	if (walk.unknown)
		return couldNotCheck(
			'spf',
			walk.unknown.replace(/^.* \(|\)$/g, ''),
			`the included record ${walk.unknown}`,
		)
	const change = { action: 'change' as const, host: '@', type: 'TXT' }
	if (walk.loop)
		return check('spf', {
			status: 'fail',
			summary: `The SPF record includes itself in a loop (${walk.loop}); receivers reject it.`,
			details,
			fix: { ...change, value: mendedSpf(null, include) },
		})
	if (walk.lookups > SPF_LOOKUP_LIMIT)
		return check('spf', {
			status: 'fail',
			summary: `The SPF record needs more than ${SPF_LOOKUP_LIMIT} DNS lookups (the limit); receivers treat it as broken. Remove includes of services you no longer send from.`,
			details: [...details, `Lookups: more than ${SPF_LOOKUP_LIMIT}`],
			fix: { ...change, value: mendedSpf(null, include) },
		})
	details.push(`Lookups: ${walk.lookups} of ${SPF_LOOKUP_LIMIT}`)
	if (walk.broken) details.push(walk.broken)
	const all = /(^|\s)([+?~-]?)all(\s|$)/i.exec(record)
	const qualifier = all ? all[2] || '+' : null
	if (qualifier === '+')
		return check('spf', {
			status: 'fail',
			summary: 'The SPF record ends in “+all”: it lets any server in the world send as the domain.',
			details,
			fix: { ...change, value: mendedSpf(record, include) },
		})
	if (include && !walk.includes.has(include))
		return check('spf', {
			status: 'fail',
			summary: `The SPF record does not list ${provider!.name}, which hosts this domain’s inboxes, so their mail fails SPF.`,
			details,
			fix: { ...change, value: mendedSpf(record, include) },
		})
	if (walk.broken)
		return check('spf', {
			status: 'warn',
			summary: `An included record is broken (${walk.broken}).`,
			details,
		})
	if (qualifier !== '~' && qualifier !== '-' && !/(^|\s)redirect=/i.test(record))
		return check('spf', {
			status: 'warn',
			summary: `The SPF record ${qualifier === '?' ? 'ends in “?all”, which' : 'has no “all” at the end, so it'} tells receivers nothing about other servers. End it in “~all”.`,
			details,
			fix: { ...change, value: mendedSpf(record, include) },
		})
	return check('spf', { status: 'pass', summary: 'The SPF record is valid.', details })
}

async function dkimCheck(dns: DnsClient, domain: string, ctx: DomainContext): Promise<HealthCheck> {
	const provider = ctx.provider ? PROVIDERS[ctx.provider] : null
	const selectors = ctx.dkimSelector ? [ctx.dkimSelector] : (provider?.selectors ?? [])
	if (!selectors.length)
		return check('dkim', {
			status: 'warn',
			summary:
				'We do not know the DKIM selector of this domain, so we cannot check its signature key. Record the selector your mail provider gave you.',
		})
	const found: string[] = []
	for (const selector of selectors) {
		const host = `${selector}._domainkey.${domain}`
		const [txt, cname] = await Promise.all([dns.txt(host), dns.cname(host)])
		if (failed(txt) && failed(cname)) return couldNotCheck('dkim', txt.code, `${host}`)
		const key = txt.ok ? txt.records.find((t) => /(^|;)\s*p=/i.test(t)) : undefined
		if (key && /(^|;)\s*p=\s*(;|$)/i.test(key))
			return check('dkim', {
				status: 'fail',
				summary: `The DKIM key at selector “${selector}” is revoked (empty), so mail is not signed.`,
				details: [key],
			})
		if (key) found.push(`${selector}: TXT ${key.slice(0, 60)}${key.length > 60 ? '…' : ''}`)
		else if (cname.ok && cname.records.length) found.push(`${selector}: CNAME ${cname.records[0]}`)
	}
	if (found.length)
		return check('dkim', {
			status: 'pass',
			summary: 'Mail is signed with a published key.',
			details: found,
		})
	const selector = selectors[0]!
	return check('dkim', {
		status: 'fail',
		summary: `No DKIM key at selector “${selector}”, so receivers cannot verify the domain’s signature.`,
		details: selectors.map((s) => `${s}._domainkey.${domain}: not found`),
		fix:
			ctx.provider === 'microsoft'
				? {
						action: 'add',
						host: `${selector}._domainkey`,
						type: 'CNAME',
						value: `${selector}-${domain.replace(/\./g, '-')}._domainkey.<your-tenant>.onmicrosoft.com`,
					}
				: {
						action: 'add',
						host: `${selector}._domainkey`,
						type: 'TXT',
						value: 'v=DKIM1; k=rsa; p=<the public key your mail provider shows>',
					},
		hint:
			ctx.provider === 'google'
				? 'Generate the key in Google Admin (Apps → Google Workspace → Gmail → Authenticate email), publish it, then press Start authentication.'
				: ctx.provider === 'microsoft'
					? 'Turn on DKIM for the domain in Microsoft Defender (Email authentication settings), which shows both CNAME values.'
					: undefined,
	})
}

/**
 * A DMARC record's tags (`p`, `rua`, …; the last of a repeated tag wins), read in one pass: it
 * runs for every domain of a run, and a chain of split/map/filter made ~6 arrays per tag.
 */
function dmarcTags(record: string) {
	const tags = new Map<string, string>()
	let start = 0
	while (start <= record.length) {
		let end = record.indexOf(';', start)
		if (end < 0) end = record.length
		const part = record.slice(start, end)
		const eq = part.indexOf('=')
		if (eq >= 0) tags.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim())
		start = end + 1
	}
	return tags
}

async function dmarcCheck(dns: DnsClient, domain: string): Promise<HealthCheck> {
	const answer = await dns.txt(`_dmarc.${domain}`)
	if (failed(answer)) return couldNotCheck('dmarc', answer.code, 'the DMARC record')
	const records = answer.records.filter((t) => /^v=DMARC1(;|\s|$)/i.test(t.trim()))
	const suggested = `v=DMARC1; p=none; rua=mailto:dmarc@${domain}`
	const fix = { action: 'add' as const, host: '_dmarc', type: 'TXT', value: suggested }
	if (!records.length)
		return check('dmarc', {
			status: 'fail',
			summary: 'No DMARC record. Gmail and Yahoo require one from bulk senders.',
			fix,
		})
	if (records.length > 1)
		return check('dmarc', {
			status: 'fail',
			summary: 'There are several DMARC records; receivers ignore them all. Keep one.',
			details: records,
			fix: { ...fix, action: 'change' },
		})
	const record = records[0]!
	const tags = dmarcTags(record)
	const policy = tags.get('p')?.toLowerCase()
	if (!policy || !['none', 'quarantine', 'reject'].includes(policy))
		return check('dmarc', {
			status: 'fail',
			summary: 'The DMARC record has no valid policy (p=none, quarantine or reject).',
			details: [record],
			fix: { ...fix, action: 'change' },
		})
	if (!tags.get('rua'))
		return check('dmarc', {
			status: 'warn',
			summary: `DMARC is set (policy “${policy}”) but no address receives its reports, so you would not hear of spoofing or failures.`,
			details: [record],
			fix: {
				...fix,
				action: 'change',
				value: `${record.replace(/;\s*$/, '')}; rua=mailto:dmarc@${domain}`,
			},
		})
	return check('dmarc', {
		status: 'pass',
		summary: `DMARC is set with policy “${policy}” and reports go to ${tags.get('rua')}.`,
		details: [record],
	})
}

type ListAnswer = 'clean' | 'listed' | 'not tested'

/** Spamhaus: 127.0.1.x (DBL) or 127.0.0.2-11 (ZEN) listed; 127.255.255.x the query was refused. */
function spamhaus(answer: Answer<string>, listed: (ip: string) => boolean): ListAnswer {
	if (!answer.ok) return 'not tested'
	if (!answer.records.length) return 'clean'
	if (answer.records.some((ip) => ip.startsWith('127.255.255.'))) return 'not tested'
	return answer.records.some(listed) ? 'listed' : 'not tested'
}

/** SURBL and URIBL: 127.0.0.1 means the query was refused; other 127.0.0.x are list bits. */
function uriList(answer: Answer<string>): ListAnswer {
	if (!answer.ok) return 'not tested'
	if (!answer.records.length) return 'clean'
	if (answer.records.includes('127.0.0.1')) return 'not tested'
	return answer.records.some((ip) => /^127\.0\.0\.\d+$/.test(ip)) ? 'listed' : 'not tested'
}

function listsCheck(
	key: CheckKey,
	results: { list: string; answer: ListAnswer }[],
	none: string,
): HealthCheck {
	const details = results.map((r) => `${r.list}: ${r.answer}`)
	const listed = results.filter((r) => r.answer === 'listed').map((r) => r.list)
	const untested = results.filter((r) => r.answer === 'not tested').map((r) => r.list)
	if (listed.length)
		return check(key, {
			status: 'fail',
			summary: `Listed on ${listed.join(', ')}: mail from it is likely to land in spam or be rejected. Stop sending from it and ask the list for removal.`,
			details,
		})
	if (untested.length)
		return check(key, {
			status: 'unknown',
			summary: `Not tested: ${untested.join(', ')} refused or failed the lookup. This is not a clean result; check again.`,
			details,
		})
	return check(key, {
		status: 'pass',
		summary: results.length ? none : 'No addresses to check.',
		details,
	})
}

async function domainListsCheck(dns: DnsClient, domain: string) {
	const [dbl, surbl, uribl] = await Promise.all([
		dns.a(`${domain}.dbl.spamhaus.org`),
		dns.a(`${domain}.multi.surbl.org`),
		dns.a(`${domain}.multi.uribl.com`),
	])
	return listsCheck(
		'domain-blocklists',
		[
			{ list: 'Spamhaus DBL', answer: spamhaus(dbl, (ip) => ip.startsWith('127.0.1.')) },
			{ list: 'SURBL', answer: uriList(surbl) },
			{ list: 'URIBL', answer: uriList(uribl) },
		],
		'Not on the Spamhaus DBL, SURBL or URIBL domain block lists.',
	)
}

/** At most this many addresses are looked up on the IP list per domain. */
const MAX_IPS = 6

/** ZEN's 127.0.0.2-11 answers: listed (the pattern made once, not per address). */
const ZEN_LISTED = /^127\.0\.0\.([2-9]|1[01])$/
const zenListed = (answer: string) => ZEN_LISTED.test(answer)

const zenQuery = (ip: string) => `${ip.split('.').reverse().join('.')}.zen.spamhaus.org`

/**
 * The domain's own addresses and its first MX hosts' on Spamhaus ZEN. The domain's address is
 * looked up at once and its ZEN queries start as soon as it answers; only the MX hosts' wait
 * for the MX answer. Each address is asked once here (decision 0105: no second trip through
 * the client's memo for the same answer).
 */
async function ipListsCheck(
	dns: DnsClient,
	domain: string,
	mx: Promise<{ hosts: string[] }>,
): Promise<HealthCheck> {
	const own = dns.a(domain)
	const zen = new Map<string, Promise<Answer<string>>>()
	const startZen = (ip: string) => {
		if (!zen.has(ip)) zen.set(ip, dns.a(zenQuery(ip)))
	}
	const onZen = (ip: string) => {
		startZen(ip)
		return zen.get(ip)!
	}
	// its first addresses are always among the ones checked below: their lookups start now (the
	// answers are awaited below, through `zen`: no Promise.all of them here)
	const early = own.then((a) => {
		if (a.ok) for (let i = 0; i < a.records.length && i < MAX_IPS; i++) startZen(a.records[i]!)
	})
	const { hosts } = await mx
	// every lookup is started before the first is awaited
	const pending = [own]
	for (let i = 0; i < hosts.length && i < 3; i++) pending.push(dns.a(hosts[i]!))
	const answers: Answer<string>[] = []
	const ips: string[] = []
	for (const lookup of pending) {
		const answer = await lookup
		answers.push(answer)
		if (answer.ok)
			for (const ip of answer.records) if (ips.length < MAX_IPS && !ips.includes(ip)) ips.push(ip)
	}
	await early
	const lookups = ips.map(onZen)
	const results: { list: string; answer: ListAnswer }[] = []
	for (let i = 0; i < ips.length; i++)
		results.push({
			list: `Spamhaus ZEN (${ips[i]})`,
			answer: spamhaus(await lookups[i]!, zenListed),
		})
	const lost = answers.find((a) => !a.ok)
	if (lost && !lost.ok && !ips.length)
		return couldNotCheck('ip-blocklists', lost.code, 'the domain’s addresses')
	// a name whose addresses could not be looked up: its servers were not tested, never "clean"
	answers.forEach((a, i) => {
		if (!a.ok)
			results.push({ list: `Spamhaus ZEN (${i ? hosts[i - 1] : domain})`, answer: 'not tested' })
	})
	return listsCheck(
		'ip-blocklists',
		results,
		`The domain’s ${ips.length === 1 ? 'address is' : `${ips.length} addresses are`} not on the Spamhaus ZEN list.`,
	)
}

/** Every check of one domain; lookups go through `dns` (bounded, retried, asked once). */
export async function checkDomainHealth(
	dns: DnsClient,
	domain: string,
	ctx: DomainContext = {},
): Promise<HealthReport> {
	// every check at once: the IP lists wait for the MX answer only, not for the SPF walk
	const mx = mxCheck(dns, domain, ctx)
	const [mxDone, spf, dkim, dmarc, lists, ipLists] = await Promise.all([
		mx,
		spfCheck(dns, domain, ctx),
		dkimCheck(dns, domain, ctx),
		dmarcCheck(dns, domain),
		domainListsCheck(dns, domain),
		ipListsCheck(dns, domain, mx),
	])
	return summarise([mxDone.result, spf, dkim, dmarc, lists, ipLists])
}

/**
 * Checks many domains with a pool of `pool` domains in progress at once: the DNS client bounds
 * the queries in flight, and the pool keeps the queue in front of it short (a thousand domains
 * started at once would hold thousands of waiting lookups and their promises). `onReport` hears
 * each domain as it is done (the job stores them in batches while the rest are checked); with
 * it, the reports are not also kept for the return value (a run's memory stays one batch, not
 * every report until the end: less for the garbage collector, decision 0105).
 */
export async function checkDomains<T extends { name: string }>(
	dns: DnsClient,
	domains: T[],
	ctx: (domain: T) => DomainContext,
	options: { pool?: number; onReport?: (domain: T, report: HealthReport) => void } = {},
): Promise<{ domain: T; report: HealthReport }[]> {
	const { onReport } = options
	const results: { domain: T; report: HealthReport }[] = onReport ? [] : new Array(domains.length)
	let next = 0
	await Promise.all(
		Array.from({ length: Math.min(options.pool ?? 128, domains.length) }, async () => {
			while (next < domains.length) {
				const i = next++
				const domain = domains[i]!
				const report = await checkDomainHealth(dns, domain.name, ctx(domain))
				if (onReport) onReport(domain, report)
				else results[i] = { domain, report }
			}
		}),
	)
	return results
}
