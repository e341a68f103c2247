// SPEC.md section 2, transcribed: path, layout and the middleware each route names.
// "signed-in" is the auth middleware; "subscription" the subscription middleware;
// the three scope pages need the scope middleware; admin-dashboard uses the admin layout
// and, per DESIGN.md section 4, the admin middleware.
export const SPEC_ROUTES = [
	{ path: '/', name: 'index', layout: 'default', middleware: ['auth', 'subscription'] },
	{ path: '/scrape', layout: 'default', middleware: ['auth', 'subscription'] },
	{ path: '/signin', layout: 'auth', middleware: [] },
	{ path: '/signup', layout: 'auth', middleware: [] },
	{ path: '/inboxes', layout: 'default', middleware: ['auth'], title: 'Inboxes Management' },
	{ path: '/api-keys', layout: 'default', middleware: ['auth', 'subscription'] },
	{ path: '/checkout', layout: 'default', middleware: ['auth', 'scope'] },
	{ path: '/purchase', layout: 'default', middleware: ['auth'] },
	{ path: '/settings', layout: 'default', middleware: ['auth'] },
	{ path: '/file-list', layout: 'default', middleware: ['auth', 'subscription'] },
	{ path: '/onboarding', layout: 'onboarding', middleware: ['auth', 'subscription'] },
	{ path: '/admin-login', layout: 'auth', middleware: [] },
	{ path: '/url-forward', layout: 'default', middleware: ['auth', 'scope'] },
	{ path: '/create-leads', layout: 'default', middleware: ['auth', 'subscription'] },
	{ path: '/subscription', layout: 'default', middleware: ['auth'] },
	{ path: '/team-members', layout: 'default', middleware: ['auth'] },
	{ path: '/reset-password', layout: 'auth', middleware: [] },
	{ path: '/admin-dashboard', layout: 'admin', middleware: ['admin'] },
	{ path: '/forgot-password', layout: 'auth', middleware: [] },
	{ path: '/create-companies', layout: 'default', middleware: ['auth', 'subscription'] },
	{ path: '/ordering-inboxes', layout: 'default', middleware: ['auth', 'scope'] },
	{ path: '/accept-invitation', layout: 'none', middleware: [] },
	{ path: '/domain-subscriptions', layout: 'default', middleware: ['auth'] },
] as const
