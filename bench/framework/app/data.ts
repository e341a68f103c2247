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
	// bench/seed.ts: three workspaces
	workspaces: [
		{ id: '6f1b7a52-0d3e-4c1f-9a57-3b2f8e4d1c60', name: 'Client 1' },
		{ id: '0b8e2f4a-7c1d-4e9b-8a3f-5d6c7b8a9e01', name: 'Client 2' },
		{ id: '9c7d6e5f-4a3b-4c2d-8e1f-0a9b8c7d6e5f', name: 'Client 3' },
	],
	currentWorkspaceId: '6f1b7a52-0d3e-4c1f-9a57-3b2f8e4d1c60',
	canManageWorkspaces: true,
	email: 'bench-1764000000000@example.com',
	credits: 0,
	isStaff: false,
	unreadNotifications: 0,
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
	// what bench/seed.ts gives the bench's owner: running and finished jobs of every kind, lists,
	// and credits spent on every one of the last 30 days
	jobs: [
		job('enrichment', 'Icebreaker 40', 1, 40, '/lists/a1/enrich'),
		job('lead-search', 'Leads 119', 1, 40, '/lists/a2'),
		job('company-search', 'Companies 29', 1, 60, '/company-lists/a3'),
		job('upload', 'Campaign 20', 1, 35, '/uploads'),
		job('csv-import', 'Leads 116', 2, 100, '/lists/a4'),
		job('lead-search', 'Leads 113', 2, 100, '/lists/a5'),
		job('company-search', 'Companies 26', 2, 100, '/company-lists/a6'),
		job('enrichment', 'Icebreaker 37', 2, 100, '/lists/a7/enrich'),
	],
	lists: [
		list('leads', 'Leads 119', 1, 1333),
		list('companies', 'Companies 29', 1, 79),
		list('leads', 'Leads 116', 2, 1312),
		list('leads', 'Leads 113', 2, 1291),
		list('companies', 'Companies 26', 2, 76),
	],
	spent: Array.from({ length: 30 }, (_, i) => ({
		day: new Date(Date.UTC(2026, 10, 24 - 29 + i)).toISOString().slice(0, 10),
		credits: 400 + ((i * 37) % 200),
	})),
}

function job(
	kind: (typeof dashboardData)['jobs'][number]['kind'],
	name: string,
	status: number,
	progress: number,
	href: string,
) {
	const id = `5e0c${String(name.length).padStart(4, '0')}-1a2b-4c3d-8e4f-${name.replace(/\D/g, '').padStart(12, '0')}`
	return {
		id,
		kind,
		name,
		status,
		progress,
		error: null,
		href,
		createdAt: '2026-11-24T03:12:45.123Z',
	}
}

function list(kind: 'leads' | 'companies', name: string, status: number, found: number) {
	const id = `7a1d${String(name.length).padStart(4, '0')}-2b3c-4d5e-9f60-${name.replace(/\D/g, '').padStart(12, '0')}`
	const href = kind === 'leads' ? `/lists/${id}` : `/company-lists/${id}`
	return { id, kind, name, status, found, href, createdAt: '2026-11-23T21:40:12.456Z' }
}
