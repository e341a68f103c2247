import { z } from 'zod'
import { cleanEmail } from '../imports/mapping.ts'

// Shared by the do-not-contact forms (conform on the client) and the actions (parseWithZod).

export const DNC_REASONS = {
	unsubscribed: 'Unsubscribed',
	bounced: 'Bounced',
	customer: "Client's customer",
	competitor: 'Competitor',
	manual: 'Manual',
	emailbison: 'Imported from EmailBison',
} as const
export type DncReason = keyof typeof DNC_REASONS
const REASON_KEYS = Object.keys(DNC_REASONS) as [DncReason, ...DncReason[]]

/** Domains of free mail providers: an entry for one blocks millions, so it is confirmed first. */
export const FREE_MAIL_DOMAINS = new Set([
	'gmail.com',
	'googlemail.com',
	'yahoo.com',
	'yahoo.co.uk',
	'ymail.com',
	'hotmail.com',
	'hotmail.co.uk',
	'outlook.com',
	'live.com',
	'msn.com',
	'aol.com',
	'icloud.com',
	'me.com',
	'mac.com',
	'proton.me',
	'protonmail.com',
	'gmx.com',
	'gmx.de',
	'gmx.net',
	'web.de',
	'mail.com',
	'yandex.ru',
	'mail.ru',
	'zoho.com',
	'qq.com',
	'163.com',
])

const DOMAIN =
	/^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/

export type ParsedEntry =
	| { ok: true; value: string; kind: 'email' | 'domain'; freeMail: boolean }
	| { ok: false; problem: string }

/**
 * An entry as typed or as a CSV cell: an email (trimmed, lower case; plus and dots kept) or a
 * domain (lower case, without a scheme, path, leading "@", "*." or "www."; international
 * names in their ASCII form). Matching then covers the domain's subdomains.
 */
export function parseEntry(raw: string): ParsedEntry {
	const text = raw.trim()
	if (text === '') return { ok: false, problem: 'Enter an email address or a domain' }
	if (text.length > 320) return { ok: false, problem: 'This is too long for an email or a domain' }
	if (text.includes('@') && !text.startsWith('@')) {
		const email = cleanEmail(text)
		if (!email) return { ok: false, problem: `${text} is not a valid email address` }
		return { ok: true, value: email.toLowerCase(), kind: 'email', freeMail: false }
	}
	let host = text
		.toLowerCase()
		.replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
		.replace(/^@/, '')
		.replace(/^\*\./, '')
		.replace(/[/?#].*$/, '')
		.replace(/\.$/, '')
	try {
		host = new URL(`http://${host}`).hostname
	} catch {
		return { ok: false, problem: `${text} is not a valid domain` }
	}
	host = host.replace(/^www\d*\./, '')
	if (!DOMAIN.test(host)) return { ok: false, problem: `${text} is not a valid domain` }
	return { ok: true, value: host, kind: 'domain', freeMail: FREE_MAIL_DOMAINS.has(host) }
}

export const freeMailQuestion = (domain: string) =>
	`${domain} is a free mail domain: blocking it blocks everyone with an address there. Tick the box and add it again to confirm.`

/** 'account' or a workspace id */
const scope = z
	.string({ error: 'Choose where the entry applies' })
	.trim()
	.max(36)
	.refine((v) => v === 'account' || /^[0-9a-f-]{36}$/i.test(v), 'Choose where the entry applies')

export const AddEntrySchema = z.object({
	intent: z.literal('add'),
	value: z
		.string({ error: 'Enter an email address or a domain' })
		.max(320, 'This is too long for an email or a domain')
		.superRefine((value, ctx) => {
			const parsed = parseEntry(value)
			if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.problem })
		}),
	reason: z.enum(REASON_KEYS, { error: 'Choose a reason' }),
	scope,
	/** the second submit of a free mail domain */
	confirmFreeMail: z.literal('on').optional(),
})

export const RemoveEntrySchema = z.object({
	intent: z.literal('remove'),
	id: z.string().max(36),
})

/** The import form's fields (the file is read as a stream, beside them). */
export const ImportEntriesSchema = z.object({
	reason: z.enum(REASON_KEYS, { error: 'Choose a reason' }),
	scope,
	allowFreeMail: z.literal('on').optional(),
})

/** The EmailBison sync form: which entries ('all' that the user may sync, or a workspace's). */
export const SyncEntriesSchema = z.object({
	intent: z.literal('sync'),
	scope: z
		.string({ error: 'Choose which entries to send' })
		.trim()
		.max(36)
		.refine((v) => v === 'all' || /^[0-9a-f-]{36}$/i.test(v), 'Choose which entries to send'),
	pull: z.literal('on').optional(),
})
