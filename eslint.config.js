import js from '@eslint/js'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'

const restrictedImports = {
	// decision 0055: no page needs these, and each kept live costs about 2.5 times its
	// heap in peak RSS under load; tests and fakes may load them
	paths: ['openai', 'stripe', 'undici', 'posthog-node', 'nodemailer'].map((name) => ({
		name,
		allowTypeImports: true,
		message: 'Loaded at first use (await import(...)), not at start: decision 0055.',
	})),
	patterns: [
		{
			group: ['matter-js'],
			message: 'matter-js is loaded only by the 404 screen (dynamic import).',
		},
		{
			group: ['@conform-to/zod/v4'],
			importNames: ['parseWithZod'],
			message:
				'Import parseWithZod from app/utils/form-bounds.ts: it holds every form to its bounds first.',
		},
		{
			// decisions 0084, 0101: code a page loads on first use is imported with import(), never statically
			group: ['**/*.enhanced.tsx', '**/move-dialog.tsx'],
			allowTypeImports: true,
			message: 'Loaded on first use (useEnhancedOnUse and import()), not with the page.',
		},
	],
}

const readFormDataOnly = {
	selector: "CallExpression[callee.property.name='formData'][callee.object.name='request']",
	message: 'Use readFormData(request) (app/utils/form-data.server.ts): a bad body is 400.',
}

/**
 * Server code: a promise nobody awaits or catches crashes the process when it rejects (a
 * database blip did, issue 40), so each one is awaited, caught or marked `void` on purpose.
 * Typed rules need the type checker, kept to the files that run on the server. They run in
 * `npm run typecheck` (scripts/typecheck.ts), on the program the typecheck has just built, not
 * in `eslint .`, which would build the same program a second time (decision 0087).
 */
export const typedServerRules = {
	files: [
		'app/**/*.server.{ts,tsx}',
		'app/{server,jobs,integrations,auth-service,storage,middleware}/**/*.ts',
		'db/**/*.ts',
		'server.ts',
		'worker.ts',
	],
	ignores: ['**/*.test.ts', 'db/schema.ts'],
	rules: {
		'@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: false }],
		'@typescript-eslint/no-misused-promises': 'error',
	},
}

export default tseslint.config(
	{
		ignores: [
			'build/',
			'build-*/',
			'node_modules/',
			'.react-router/',
			'.data/',
			'db/schema.ts',
			'test-results/',
			'playwright-report/',
			'bench/results/',
			'bench/framework/build/',
		],
	},
	js.configs.recommended,
	...tseslint.configs.recommended,
	{
		files: ['**/*.{ts,tsx}'],
		languageOptions: { globals: { ...globals.node, ...globals.browser } },
		plugins: { 'react-hooks': reactHooks },
		rules: {
			...reactHooks.configs.recommended.rules,
			'@typescript-eslint/no-explicit-any': 'off',
			'@typescript-eslint/no-unused-vars': [
				'error',
				{ argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
			],
			'@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
			'no-restricted-imports': ['error', restrictedImports],
		},
	},
	{
		// Bad bodies are 400, not 500: actions read forms through readFormData.
		files: ['app/routes/**/*.{ts,tsx}'],
		rules: { 'no-restricted-syntax': ['error', readFormDataOnly] },
	},
	{
		// An action answers a service's FormError with formErrorReply or redirectOnFormError
		// (app/utils/form-errors.server.ts), not a catch of its own (decision 0075).
		files: ['app/routes/**/*.{ts,tsx}', 'app/services/**/*.{ts,tsx}'],
		ignores: [
			'**/*.test.ts',
			// not an action's answer: a loader's message, a key test's record, a job's end
			'app/routes/checkout.tsx',
			'app/services/api-keys/api-keys.server.ts',
			'app/services/inboxes/order-job.server.ts',
			'app/routes/subscription.tsx',
			'app/services/billing/stripe-webhook.server.ts',
			'app/services/inboxes/fulfilment.server.ts',
			'app/services/bulk/bulk-actions.server.ts',
		],
		rules: {
			'no-restricted-syntax': [
				'error',
				readFormDataOnly,
				{
					selector: "BinaryExpression[operator='instanceof'][right.name='FormError']",
					message:
						'Answer a FormError with formErrorReply or redirectOnFormError (app/utils/form-errors.server.ts).',
				},
			],
		},
	},
	{
		// Generic layers know no page (issue 33, decision 0075): a page says what it needs of them
		// (`handle`, withContextRead), found through the route a request matches. The services they
		// may use serve every request: auth, the current workspace, URL forwarding by Host.
		files: ['app/middleware/**/*.{ts,tsx}', 'app/server/**/*.{ts,tsx}'],
		ignores: ['**/*.test.ts'],
		rules: {
			'no-restricted-imports': [
				'error',
				{
					...restrictedImports,
					patterns: [
						...restrictedImports.patterns,
						{
							regex: '(^|/)routes/',
							message: 'A generic layer imports no route: the route declares what it needs.',
						},
						{
							regex:
								'(^|/)services/(?!auth/|workspaces/current-workspace|domains/forwarding-cache)',
							message:
								"A generic layer imports no page's service: the route declares what it needs.",
						},
					],
				},
			],
		},
	},
	{
		files: [
			'app/components/not-found/**',
			'app/utils/form-bounds.ts',
			'**/*.test.ts',
			'tests/**',
			'bench/**',
		],
		rules: { 'no-restricted-imports': 'off' },
	},
)
