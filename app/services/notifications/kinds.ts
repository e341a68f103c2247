/** The kinds of job end a person is told about; each can be mailed or not (Settings). */
export const NOTIFICATION_KINDS = [
	'scrape',
	'import',
	'enrichment',
	'upload',
	'inbox-order',
	'renewal',
	'domain-health',
] as const

export type NotificationKind = (typeof NOTIFICATION_KINDS)[number]

export const NOTIFICATION_KIND_LABELS: Record<NotificationKind, string> = {
	scrape: 'Lead and company searches',
	import: 'CSV imports',
	enrichment: 'Enrichment runs',
	upload: 'EmailBison uploads',
	'inbox-order': 'Inbox orders',
	renewal: 'Failed renewal payments',
	'domain-health': 'Domains that start failing their health checks',
}
