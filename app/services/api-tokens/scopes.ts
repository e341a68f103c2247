import { z } from 'zod'

// What an API token may do: read, or read and write, per family of resources. Shared by the
// Developers page's form (conform on the client) and the token service.

export const API_FAMILIES = [
	{ key: 'lists', label: 'Lists and leads', writable: true },
	{ key: 'scrapes', label: 'Lead scrapes', writable: true },
	{ key: 'enrichments', label: 'Enrichment runs', writable: true },
	{ key: 'verifications', label: 'Email verification', writable: true },
	{ key: 'uploads', label: 'EmailBison uploads', writable: true },
	{ key: 'domains', label: 'Domains and inbox orders', writable: false },
	{ key: 'credits', label: 'Credits', writable: false },
	{ key: 'jobs', label: 'Jobs', writable: false },
	{ key: 'do-not-contact', label: 'Do-not-contact list', writable: true },
] as const

export type ApiFamily = (typeof API_FAMILIES)[number]['key']
export type ApiAccess = 'read' | 'write'
export type ApiScope = `${ApiFamily}:${ApiAccess}`

export const API_SCOPES = API_FAMILIES.flatMap((f) =>
	f.writable ? [`${f.key}:read`, `${f.key}:write`] : [`${f.key}:read`],
) as ApiScope[]

/** A write scope includes reading the same family. */
export function scopeAllows(scopes: readonly string[], wanted: ApiScope) {
	if (scopes.includes(wanted)) return true
	const [family, access] = wanted.split(':')
	return access === 'read' && scopes.includes(`${family}:write`)
}

/** The recognisable start of every token (secret scanners can look for it). */
export const TOKEN_PREFIX = 'ls_live_'

const toArray = (value: unknown) =>
	value === undefined || value === '' ? [] : Array.isArray(value) ? value : [value]

export const CreateApiTokenSchema = z.object({
	intent: z.literal('create'),
	name: z
		.string({ error: 'Enter a name' })
		.trim()
		.min(1, 'Enter a name')
		.max(80, 'Use at most 80 characters'),
	scopes: z.preprocess(
		toArray,
		z
			.array(z.enum(API_SCOPES as [ApiScope, ...ApiScope[]]), { error: 'Choose what it may do' })
			.min(1, 'Choose at least one permission')
			.max(API_SCOPES.length),
	),
	// none chosen: every workspace its maker may use
	workspaceIds: z.preprocess(toArray, z.array(z.string().max(100)).max(500)),
})

export const RevokeApiTokenSchema = z.object({
	intent: z.literal('revoke'),
	tokenId: z.string({ error: 'Choose a token' }).max(100),
})

export const ApiTokenActionSchema = z.discriminatedUnion('intent', [
	CreateApiTokenSchema,
	RevokeApiTokenSchema,
])
