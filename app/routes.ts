import type { RouteConfig, RouteConfigEntry } from '@react-router/dev/routes'

/**
 * The one route table: every screen of SPEC.md section 2 with its layout and
 * its middleware, plus the resource routes the screens need. The root
 * middleware (app/middleware/) runs each screen's named middleware in order
 * before its loader or action. Screens a later issue builds are absent until
 * then, and their paths answer the 404 screen.
 *
 * Written without @react-router/dev's helpers so the server bundle can read
 * it at run time without pulling in the build tooling.
 */

export const MIDDLEWARE_NAMES = ['auth', 'subscription', 'scope', 'admin'] as const
export type MiddlewareName = (typeof MIDDLEWARE_NAMES)[number]
export type LayoutName = 'admin' | 'auth' | 'default' | 'onboarding' | 'none'

export type Screen = {
	/** route id; SPEC.md's route name where it gives one */
	name: string
	/** URL path, without a leading slash; '' is the index */
	path: string
	file: string
	layout: LayoutName
	middleware: readonly MiddlewareName[]
	/** page title (before ' | {APP_NAME}') */
	title: string
}

export const screens = [
	{
		name: 'index',
		path: '',
		file: 'routes/dashboard.tsx',
		layout: 'default',
		middleware: ['auth', 'subscription'],
		title: 'Dashboard',
	},
	{
		name: 'onboarding',
		path: 'onboarding',
		file: 'routes/onboarding.tsx',
		layout: 'onboarding',
		middleware: ['auth', 'subscription'],
		title: 'Welcome',
	},
	{
		name: 'signin',
		path: 'signin',
		file: 'routes/signin.tsx',
		layout: 'auth',
		middleware: [],
		title: 'Sign in',
	},
	{
		name: 'signin-verify',
		path: 'signin/verify',
		file: 'routes/signin-verify.tsx',
		layout: 'auth',
		middleware: [],
		title: 'Two-factor authentication',
	},
	{
		name: 'signup',
		path: 'signup',
		file: 'routes/signup.tsx',
		layout: 'auth',
		middleware: [],
		title: 'Create your account',
	},
	{
		name: 'settings',
		path: 'settings',
		file: 'routes/settings.tsx',
		layout: 'default',
		middleware: ['auth'],
		title: 'Settings',
	},
	{
		name: 'admin-login',
		path: 'admin-login',
		file: 'routes/admin-login.tsx',
		layout: 'auth',
		middleware: [],
		title: 'Admin sign in',
	},
	{
		name: 'reset-password',
		path: 'reset-password',
		file: 'routes/reset-password.tsx',
		layout: 'auth',
		middleware: [],
		title: 'Choose a new password',
	},
	{
		name: 'forgot-password',
		path: 'forgot-password',
		file: 'routes/forgot-password.tsx',
		layout: 'auth',
		middleware: [],
		title: 'Reset your password',
	},
	{
		name: 'subscription',
		path: 'subscription',
		file: 'routes/subscription.tsx',
		layout: 'default',
		middleware: ['auth'],
		title: 'Subscription',
	},
	{
		name: 'purchase',
		path: 'purchase',
		file: 'routes/purchase.tsx',
		layout: 'default',
		middleware: ['auth'],
		title: 'Purchase credits',
	},
	{
		name: 'test-payment',
		path: 'test-payment/:sessionId',
		file: 'routes/test-payment.tsx',
		layout: 'default',
		middleware: ['auth'],
		title: 'Test payment',
	},
	{
		name: 'team-members',
		path: 'team-members',
		file: 'routes/team-members.tsx',
		layout: 'default',
		middleware: ['auth'],
		title: 'Team members',
	},
	{
		name: 'accept-invitation',
		path: 'accept-invitation',
		file: 'routes/accept-invitation.tsx',
		layout: 'none',
		middleware: [],
		title: 'Accept invitation',
	},
	{
		name: 'workspaces',
		path: 'workspaces',
		file: 'routes/workspaces.tsx',
		layout: 'default',
		middleware: ['auth'],
		title: 'Workspaces',
	},
	{
		name: 'attach-workspace',
		path: 'attach-workspace',
		file: 'routes/attach-workspace.tsx',
		layout: 'default',
		middleware: ['auth'],
		title: 'Move to a workspace',
	},
	{
		name: 'create-leads',
		path: 'create-leads',
		file: 'routes/create-leads.tsx',
		layout: 'default',
		middleware: ['auth', 'subscription'],
		title: 'Create leads',
	},
	{
		name: 'create-companies',
		path: 'create-companies',
		file: 'routes/create-companies.tsx',
		layout: 'default',
		middleware: ['auth', 'subscription'],
		title: 'Create companies',
	},
	{
		name: 'scrape',
		path: 'scrape',
		file: 'routes/scrape.tsx',
		layout: 'default',
		middleware: ['auth', 'subscription'],
		title: 'Scrape',
	},
	{
		name: 'emailbison-upload',
		path: 'lists/:listId/upload',
		file: 'routes/emailbison-upload.tsx',
		layout: 'default',
		middleware: ['auth', 'subscription'],
		title: 'Upload to EmailBison',
	},
	{
		name: 'uploads',
		path: 'uploads',
		file: 'routes/uploads.tsx',
		layout: 'default',
		middleware: ['auth', 'subscription'],
		title: 'EmailBison uploads',
	},
	{
		name: 'file-list',
		path: 'file-list',
		file: 'routes/file-list.tsx',
		layout: 'default',
		middleware: ['auth', 'subscription'],
		title: 'File list',
	},
	{
		name: 'list',
		path: 'lists/:listId',
		file: 'routes/list.tsx',
		layout: 'default',
		middleware: ['auth', 'subscription'],
		title: 'List',
	},
	{
		name: 'lead',
		path: 'lists/:listId/leads/:leadId',
		file: 'routes/lead.tsx',
		layout: 'default',
		middleware: ['auth', 'subscription'],
		title: 'Lead',
	},
	{
		name: 'list-columns',
		path: 'lists/:listId/columns',
		file: 'routes/list-columns.tsx',
		layout: 'default',
		middleware: ['auth', 'subscription'],
		title: 'Map columns',
	},
	{
		name: 'company-list',
		path: 'company-lists/:listId',
		file: 'routes/company-list.tsx',
		layout: 'default',
		middleware: ['auth', 'subscription'],
		title: 'Company list',
	},
	{
		name: 'enrich-company-list',
		path: 'company-lists/:listId/enrich',
		file: 'routes/enrich-company-list.tsx',
		layout: 'default',
		middleware: ['auth', 'subscription'],
		title: 'Enrich company list',
	},
	{
		name: 'list-import-report',
		path: 'lists/:listId/import-report',
		file: 'routes/list-import-report.tsx',
		layout: 'default',
		middleware: ['auth', 'subscription'],
		title: 'Import report',
	},
	{
		name: 'api-keys',
		path: 'api-keys',
		file: 'routes/api-keys.tsx',
		layout: 'default',
		middleware: ['auth', 'subscription'],
		title: 'API keys',
	},
	{
		name: 'enrichments',
		path: 'enrichments',
		file: 'routes/enrichments.tsx',
		layout: 'default',
		middleware: ['auth', 'subscription'],
		title: 'Enrichments',
	},
	{
		name: 'enrich-list',
		path: 'lists/:listId/enrich',
		file: 'routes/enrich-list.tsx',
		layout: 'default',
		middleware: ['auth', 'subscription'],
		title: 'Enrich list',
	},
	{
		name: 'verify-list',
		path: 'lists/:listId/verify',
		file: 'routes/verify-list.tsx',
		layout: 'default',
		middleware: ['auth', 'subscription'],
		title: 'Verify emails',
	},
	{
		name: 'admin-dashboard',
		path: 'admin-dashboard',
		file: 'routes/admin-dashboard.tsx',
		layout: 'admin',
		middleware: ['admin'],
		title: 'Admin',
	},
	{
		name: 'admin-user',
		path: 'admin-dashboard/users/:userId',
		file: 'routes/admin-user.tsx',
		layout: 'admin',
		middleware: ['admin'],
		title: 'Admin: user',
	},
	{
		name: 'admin-plans',
		path: 'admin-dashboard/plans',
		file: 'routes/admin-plans.tsx',
		layout: 'admin',
		middleware: ['admin'],
		title: 'Admin: plans',
	},
	{
		name: 'admin-jobs',
		path: 'admin-dashboard/jobs',
		file: 'routes/admin-jobs.tsx',
		layout: 'admin',
		middleware: ['admin'],
		title: 'Admin: jobs',
	},
	{
		name: 'admin-inbox-orders',
		path: 'admin-dashboard/inbox-orders',
		file: 'routes/admin-inbox-orders.tsx',
		layout: 'admin',
		middleware: ['admin'],
		title: 'Admin: inbox orders',
	},
	{
		name: 'admin-templates',
		path: 'admin-dashboard/templates',
		file: 'routes/admin-templates.tsx',
		layout: 'admin',
		middleware: ['admin'],
		title: 'Admin: URL templates',
	},
	{
		name: 'admin-audit',
		path: 'admin-dashboard/audit',
		file: 'routes/admin-audit.tsx',
		layout: 'admin',
		middleware: ['admin'],
		title: 'Admin: audit log',
	},
	{
		name: 'domains',
		path: 'domains',
		file: 'routes/domains.tsx',
		layout: 'default',
		middleware: ['auth', 'scope'],
		title: 'Domains',
	},
	{
		name: 'domains-import',
		path: 'domains/import',
		file: 'routes/domains-import.tsx',
		layout: 'default',
		middleware: ['auth', 'scope'],
		title: 'Import domains',
	},
	{
		name: 'domains-health',
		path: 'domains/health',
		file: 'routes/domains-health.tsx',
		layout: 'default',
		middleware: ['auth', 'scope'],
		title: 'Domain health',
	},
	{
		name: 'domain-health',
		path: 'domains/:id/health',
		file: 'routes/domain-health.tsx',
		layout: 'default',
		middleware: ['auth', 'scope'],
		title: 'Domain health',
	},
	{
		name: 'domain-subscriptions',
		path: 'domain-subscriptions',
		file: 'routes/domain-subscriptions.tsx',
		layout: 'default',
		middleware: ['auth'],
		title: 'Domain subscriptions',
	},
	{
		name: 'url-forward',
		path: 'url-forward',
		file: 'routes/url-forward.tsx',
		layout: 'default',
		middleware: ['auth', 'scope'],
		title: 'URL forwarding',
	},
	{
		name: 'ordering-inboxes',
		path: 'ordering-inboxes',
		file: 'routes/ordering-inboxes.tsx',
		layout: 'default',
		middleware: ['auth', 'scope'],
		title: 'Order inboxes',
	},
	{
		name: 'checkout',
		path: 'checkout',
		file: 'routes/checkout.tsx',
		layout: 'default',
		middleware: ['auth', 'scope'],
		title: 'Checkout',
	},
	{
		name: 'inboxes',
		path: 'inboxes',
		file: 'routes/inboxes.tsx',
		layout: 'default',
		middleware: ['auth'],
		title: 'Inboxes Management',
	},
	{
		name: 'notifications',
		path: 'notifications',
		file: 'routes/notifications.tsx',
		layout: 'default',
		middleware: ['auth'],
		title: 'Notifications',
	},
	{
		name: 'developers-webhooks',
		path: 'developers/webhooks',
		file: 'routes/developers-webhooks.tsx',
		layout: 'default',
		// as /developers: a lapsed plan must not keep anyone from revoking or pausing (0097)
		middleware: ['auth'],
		title: 'Webhooks',
	},
	{
		name: 'developers',
		path: 'developers',
		file: 'routes/developers.tsx',
		layout: 'default',
		middleware: ['auth'],
		title: 'Developers',
	},
	{
		name: 'developers-api',
		path: 'developers/api',
		file: 'routes/developers-api.tsx',
		layout: 'default',
		middleware: ['auth'],
		title: 'API reference',
	},
	{
		name: 'do-not-contact',
		path: 'do-not-contact',
		file: 'routes/do-not-contact.tsx',
		layout: 'default',
		middleware: ['auth', 'subscription'],
		title: 'Do not contact',
	},
	{
		name: 'list-dedupe',
		path: 'lists/:listId/dedupe',
		file: 'routes/list-dedupe.tsx',
		layout: 'default',
		middleware: ['auth', 'subscription'],
		title: 'Remove leads in other lists',
	},
] as const satisfies readonly Screen[]

/** Routes that are not screens: form endpoints, files and development tools. */
export const resourceRoutes = [
	{ name: 'inboxes-export', path: 'inboxes/export', file: 'routes/resources/inboxes-export.ts' },
	{ name: 'signout', path: 'signout', file: 'routes/resources/signout.ts' },
	{ name: 'auth-confirm', path: 'auth/confirm', file: 'routes/resources/auth-confirm.ts' },
	{ name: 'dev-mailbox', path: 'dev/mailbox', file: 'routes/resources/dev-mailbox.tsx' },
	{ name: 'healthz', path: 'healthz', file: 'routes/resources/healthz.ts' },
	{ name: 'readyz', path: 'readyz', file: 'routes/resources/readyz.ts' },
	{ name: 'dev-error', path: 'dev/error', file: 'routes/resources/dev-error.tsx' },
	{ name: 'stripe-webhook', path: 'stripe/webhook', file: 'routes/resources/stripe-webhook.ts' },
	{ name: 'build-version', path: 'build-version', file: 'routes/resources/build-version.ts' },
	{ name: 'analytics-pv', path: 'analytics/pv', file: 'routes/resources/analytics-pv.ts' },
	{ name: 'consent', path: 'consent', file: 'routes/resources/consent.ts' },
	{
		name: 'switch-workspace',
		path: 'workspaces/switch',
		file: 'routes/resources/switch-workspace.ts',
	},
	{
		name: 'upload-rejected',
		path: 'uploads/:uploadId/rejected',
		file: 'routes/resources/upload-rejected.ts',
	},
	{
		name: 'list-download',
		path: 'lists/:listId/download',
		file: 'routes/resources/list-download.ts',
	},
	{
		name: 'list-import-errors-download',
		path: 'lists/:listId/import-report/download',
		file: 'routes/resources/list-import-errors-download.ts',
	},
	{
		name: 'table-preferences',
		path: 'table-preferences',
		file: 'routes/resources/table-preferences.ts',
	},
	{ name: 'lists-export', path: 'lists/export', file: 'routes/resources/lists-export.ts' },
	{
		name: 'do-not-contact-download',
		path: 'do-not-contact/download',
		file: 'routes/resources/do-not-contact-download.ts',
	},
] as const

export type ScreenName = (typeof screens)[number]['name']

const layoutFiles: Record<Exclude<LayoutName, 'none'>, string> = {
	default: 'routes/layouts/default.tsx',
	auth: 'routes/layouts/auth.tsx',
	onboarding: 'routes/layouts/onboarding.tsx',
	admin: 'routes/layouts/admin.tsx',
}

export function assertKnownMiddleware(
	table: readonly { name: string; middleware: readonly string[] }[],
) {
	for (const screen of table) {
		for (const name of screen.middleware) {
			if (!(MIDDLEWARE_NAMES as readonly string[]).includes(name)) {
				throw new Error(`Unknown middleware "${name}" on route "${screen.name}"`)
			}
		}
	}
}

// An unknown middleware name is an error at start-up (and at build time).
assertKnownMiddleware(screens)

// asked on every request (the route guards, the default layout) with a route's pattern, of
// which there are a few dozen: a lookup, not a search
const screensByPattern = new Map<string, Screen | undefined>()

export function screenByPattern(pattern: string): Screen | undefined {
	if (screensByPattern.has(pattern)) return screensByPattern.get(pattern)
	const path = pattern.replace(/^\//, '').replace(/\/$/, '')
	const screen = (screens as readonly Screen[]).find((s) => s.path === path)
	screensByPattern.set(pattern, screen)
	return screen
}

function screenEntry(screen: Screen): RouteConfigEntry {
	return screen.path === ''
		? { id: screen.name, file: screen.file, index: true }
		: { id: screen.name, file: screen.file, path: screen.path }
}

const layouts = (Object.keys(layoutFiles) as (keyof typeof layoutFiles)[])
	.map((layout) => ({
		id: `layout-${layout}`,
		file: layoutFiles[layout],
		children: (screens as readonly Screen[]).filter((s) => s.layout === layout).map(screenEntry),
	}))
	.filter((entry) => entry.children.length > 0)

export default [
	...layouts,
	...(screens as readonly Screen[]).filter((s) => s.layout === 'none').map(screenEntry),
	...resourceRoutes.map((r) => ({ id: r.name, file: r.file, path: r.path })),
	{ id: 'not-found', file: 'routes/not-found.tsx', path: '*' },
] satisfies RouteConfig
