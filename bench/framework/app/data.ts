// What the app's loaders return for the bench's signed-in owner (bench/run.ts), as constants:
// no session, no database. Typed by the app's own loaders, so a change of shape there fails
// the typecheck until this fixture follows.
import type { loader as rootLoader } from '../../../app/root.tsx'
import type { loader as layoutLoader } from '../../../app/routes/layouts/default.tsx'
import type { loader as dashboardLoader } from '../../../app/routes/dashboard.tsx'

export const rootData: Awaited<ReturnType<typeof rootLoader>>['data'] = {
	appName: 'Leadsmith',
	toast: null,
	client: {
		ipCountryUrl: 'https://ipapi.co/json/',
		buildId: 'mj3k2l1a-5f0c9e2b',
		buildPollMs: 3_600_000,
		posthog: null,
	},
	consent: null,
	analyticsUser: null,
}

export const layoutData: Awaited<ReturnType<typeof layoutLoader>> = {
	workspaces: [{ id: '6f1b7a52-0d3e-4c1f-9a57-3b2f8e4d1c60', name: 'Default workspace' }],
	currentWorkspaceId: '6f1b7a52-0d3e-4c1f-9a57-3b2f8e4d1c60',
	canManageWorkspaces: true,
	email: 'bench-1764000000000@example.com',
	credits: 0,
	isStaff: false,
	navigation: [
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
				{ name: 'domains', label: 'Domains', to: '/domains' },
				{
					name: 'domain-subscriptions',
					label: 'Domain subscriptions',
					to: '/domain-subscriptions',
				},
				{ name: 'url-forward', label: 'URL forwarding', to: '/url-forward' },
				{ name: 'ordering-inboxes', label: 'Order inboxes', to: '/ordering-inboxes' },
				{ name: 'inboxes', label: 'Inboxes', to: '/inboxes' },
			],
		},
		{
			label: 'Outreach',
			items: [{ name: 'uploads', label: 'EmailBison uploads', to: '/uploads' }],
		},
		{
			label: 'Account',
			items: [
				{ name: 'workspaces', label: 'Workspaces', to: '/workspaces' },
				{ name: 'team-members', label: 'Team members', to: '/team-members' },
				{ name: 'subscription', label: 'Subscription', to: '/subscription' },
				{ name: 'purchase', label: 'Purchase credits', to: '/purchase' },
				{ name: 'settings', label: 'Settings', to: '/settings' },
			],
		},
	],
}

export const dashboardData: Awaited<ReturnType<typeof dashboardLoader>> = {
	plan: { name: 'Starter', detail: 'Renews on Dec 24, 2026' },
	credits: 0,
	canBuyCredits: true,
	canManagePlan: true,
	quickActions: [
		{ to: '/create-leads', label: 'Create leads' },
		{ to: '/create-companies', label: 'Create companies' },
		{ to: '/file-list', label: 'Import a CSV' },
		{ to: '/enrichments', label: 'Enrichments' },
		{ to: '/scrape', label: 'All lists' },
	],
	// the bench's owner is new: no jobs or lists, nothing spent in 30 days
	jobs: [],
	lists: [],
	spent: Array.from({ length: 30 }, (_, i) => ({
		day: new Date(Date.UTC(2026, 10, 24 - 29 + i)).toISOString().slice(0, 10),
		credits: 0,
	})),
}
