import type { RouteConfig } from '@react-router/dev/routes'

// The same nesting as the app's pages: root > layout > page.
export default [
	{
		file: 'routes/default-layout.tsx',
		children: [{ index: true, file: 'routes/dashboard.tsx' }],
	},
	{
		file: 'routes/auth-layout.tsx',
		children: [{ path: 'signin', file: 'routes/signin.tsx' }],
	},
] satisfies RouteConfig
