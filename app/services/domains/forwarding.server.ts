import { sql, type Kysely, type Transaction } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { normalizeDomain } from '../../utils/domains.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { recordAudit } from '../audit/audit-log.server.ts'
import { domainAccount } from './access.server.ts'
import { isAppHost } from './app-hosts.server.ts'
import { findDomain, hasLiveSubscription } from './domains.server.ts'
import { invalidateForwarding } from './forwarding-cache.server.ts'

export type ForwardingInput = {
	domainId: string
	url: string
	code: 301 | 302
	keepPath: boolean
}

/**
 * A forward-to URL people can type: http(s) only, with a host, no credentials, and not back at
 * the forwarded domain itself (or one of its subdomains): that would loop.
 */
export function checkForwardUrl(domain: string, raw: string): string {
	let value = raw.trim()
	if (!/^[a-z][a-z0-9+.-]*:/i.test(value)) value = `https://${value}`
	let url: URL
	try {
		url = new URL(value)
	} catch {
		throw new FormError('Enter a web address like https://example.com/page.', 'url')
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		throw new FormError('Forward to an http:// or https:// address.', 'url')
	}
	if (url.username || url.password) {
		throw new FormError('The address cannot carry a user name or password.', 'url')
	}
	const host = normalizeDomain(url.hostname)
	const name = 'domain' in host ? host.domain : url.hostname
	if (name === domain || name.endsWith(`.${domain}`) || url.hostname === domain) {
		throw new FormError(`Forwarding ${domain} to itself would loop. Pick another site.`, 'url')
	}
	return url.toString()
}

/** The name this app's Host lookup would match for a URL (`www.` dropped), or null. */
function forwardedHost(url: string) {
	try {
		const host = normalizeDomain(new URL(url).hostname)
		return 'domain' in host ? host.domain : null
	} catch {
		return null
	}
}

/**
 * Refuses a target that leads back to the domain through existing forwards: this app answers
 * every forwarded domain by its Host (of any account, active or lapsed, verified or not, as a
 * lapsed one may be renewed and an unverified one verified), so a -> b -> a sends visitors
 * round in circles. A name may be held by several accounts: every holder's forward counts.
 */
async function refuseForwardingLoop(trx: Transaction<DB>, domain: string, url: string) {
	const first = forwardedHost(url)
	const seen = new Set<string>()
	let hosts = first ? [first] : []
	while (hosts.length) {
		const next: string[] = []
		for (const host of hosts) {
			if (host === domain || host.endsWith(`.${domain}`)) {
				throw new FormError(
					`${first} forwards back to ${domain}, so forwarding there would loop. Pick another site.`,
					'url',
				)
			}
			seen.add(host)
		}
		const rows = await trx
			.selectFrom('domains')
			.select('forward_to')
			.where('name', 'in', hosts)
			.where('forward_to', 'is not', null)
			.execute()
		for (const row of rows) {
			const host = forwardedHost(row.forward_to!)
			if (host && !seen.has(host)) next.push(host)
		}
		hosts = [...new Set(next)]
	}
}

/**
 * Forwards a domain (with a live subscription) to a URL with 301 or 302. It can be set before
 * the domain is verified; it goes live when a DNS check finds the verification record.
 */
export async function setForwarding(
	account: AccountContext | null,
	input: ForwardingInput,
	db: Kysely<DB> = defaultDb,
) {
	const acting = domainAccount(account, 'change')
	const updated = await db.transaction().execute(async (trx) => {
		// One forwarding change at a time (across accounts): two changes at once, a -> b and
		// b -> a, would each see the other's old target and together make a loop.
		await sql`select pg_advisory_xact_lock(hashtext('domain_forwarding'))`.execute(trx)
		const domain = await findDomain(acting, input.domainId, trx, { forUpdate: true })
		if (domain.status !== 'active' || !(await hasLiveSubscription(trx, domain.id))) {
			throw new FormError(
				`${domain.name} has no active domain subscription: subscribe to forward it.`,
				'domainId',
			)
		}
		if (isAppHost(domain.name)) {
			throw new FormError(`${domain.name} is the app’s own address and cannot forward.`, 'domainId')
		}
		const url = checkForwardUrl(domain.name, input.url)
		await refuseForwardingLoop(trx, domain.name, url)
		const row = await trx
			.updateTable('domains')
			.set({
				forward_to: url,
				redirect_code: input.code,
				forward_keep_path: input.keepPath,
				updated_at: new Date(),
			})
			.where('id', '=', domain.id)
			.returningAll()
			.executeTakeFirstOrThrow()
		await recordAudit(trx, {
			actorUserId: acting.user.id,
			action: 'domains.forwarding.set',
			targetType: 'domain',
			targetId: domain.id,
			before: { forward_to: domain.forward_to, redirect_code: domain.redirect_code },
			after: { forward_to: url, redirect_code: input.code, keep_path: input.keepPath },
		})
		return row
	})
	invalidateForwarding()
	return updated
}

export async function removeForwarding(
	account: AccountContext | null,
	domainId: string,
	db: Kysely<DB> = defaultDb,
) {
	const acting = domainAccount(account, 'change')
	const domain = await db.transaction().execute(async (trx) => {
		const domain = await findDomain(acting, domainId, trx, { forUpdate: true })
		await trx
			.updateTable('domains')
			.set({ forward_to: null, redirect_code: null, updated_at: new Date() })
			.where('id', '=', domain.id)
			.execute()
		await recordAudit(trx, {
			actorUserId: acting.user.id,
			action: 'domains.forwarding.remove',
			targetType: 'domain',
			targetId: domain.id,
			before: { forward_to: domain.forward_to, redirect_code: domain.redirect_code },
		})
		return domain
	})
	invalidateForwarding()
	return domain
}
