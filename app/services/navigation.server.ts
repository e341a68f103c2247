import { hasAnyScope, isOwner, type AccountContext } from '../context.server.ts'
import { DOMAIN_SCOPES } from '../middleware/route-guards.server.ts'

export type NavItem = { name: string; label: string; to: string }
export type NavGroup = { label: string; items: NavItem[] }

type Entry = NavItem & { allowed?: (account: AccountContext) => boolean }

const ownerOnly = (a: AccountContext) => isOwner(a)
const canManageDomains = (a: AccountContext) => hasAnyScope(a, DOMAIN_SCOPES)
// API tokens: the owner and team admins (as canManageApiTokens says)
const canUseApi = (a: AccountContext) =>
	isOwner(a) || (a.isActiveTeamMember && a.teamRole === 'admin')

// DESIGN.md section 8: grouped as the user thinks of the work.
const GROUPS: { label: string; items: Entry[] }[] = [
	{
		label: 'Leads',
		items: [
			{ name: 'index', label: 'Dashboard', to: '/' },
			{ name: 'create-leads', label: 'Create leads', to: '/create-leads' },
			{ name: 'create-companies', label: 'Create companies', to: '/create-companies' },
			{ name: 'scrape', label: 'Scrape', to: '/scrape' },
			{ name: 'file-list', label: 'File list', to: '/file-list' },
		],
	},
	{
		label: 'Enrichment',
		items: [
			{ name: 'enrichments', label: 'Enrichments and chains', to: '/enrichments' },
			{ name: 'api-keys', label: 'API keys', to: '/api-keys' },
		],
	},
	{
		label: 'Infrastructure',
		items: [
			{ name: 'domains', label: 'Domains', to: '/domains', allowed: canManageDomains },
			{
				name: 'domain-subscriptions',
				label: 'Domain subscriptions',
				to: '/domain-subscriptions',
				allowed: canManageDomains,
			},
			{
				name: 'url-forward',
				label: 'URL forwarding',
				to: '/url-forward',
				allowed: canManageDomains,
			},
			{
				name: 'ordering-inboxes',
				label: 'Order inboxes',
				to: '/ordering-inboxes',
				allowed: canManageDomains,
			},
			{ name: 'inboxes', label: 'Inboxes', to: '/inboxes', allowed: canManageDomains },
		],
	},
	{
		label: 'Outreach',
		items: [
			{ name: 'uploads', label: 'EmailBison uploads', to: '/uploads' },
			{ name: 'do-not-contact', label: 'Do not contact', to: '/do-not-contact' },
		],
	},
	{
		label: 'Account',
		items: [
			{ name: 'workspaces', label: 'Workspaces', to: '/workspaces' },
			{ name: 'team-members', label: 'Team members', to: '/team-members', allowed: ownerOnly },
			{ name: 'subscription', label: 'Subscription', to: '/subscription', allowed: ownerOnly },
			{ name: 'purchase', label: 'Purchase credits', to: '/purchase', allowed: ownerOnly },
			{ name: 'settings', label: 'Settings', to: '/settings' },
			{ name: 'developers', label: 'Developers', to: '/developers', allowed: canUseApi },
		],
	},
]

/** The sidebar for this user: only the screens the user may use. */
export function navigationFor(account: AccountContext): NavGroup[] {
	return GROUPS.map((group) => ({
		label: group.label,
		items: group.items
			.filter((item) => item.allowed?.(account) ?? true)
			.map(({ name, label, to }) => ({ name, label, to })),
	})).filter((group) => group.items.length > 0)
}
