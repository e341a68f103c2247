/* global module */
/**
 * `npm run lint` runs this (issue 33, decision 0070): no import circle in the project's own
 * code. Type-only imports (`import type { X }`) are left out: TypeScript erases them, so they
 * load nothing at run time and make no circle (tsPreCompilationDeps: false reads each module
 * as it is compiled). An import whose names are all inline types (`import { type X }`) still
 * loads its module under verbatimModuleSyntax, so it counts.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
	forbidden: [
		{
			name: 'no-circular',
			severity: 'error',
			comment:
				'An import circle works only by hoisting and load order: make one side a leaf (decision 0070).',
			from: {},
			to: { circular: true },
		},
	],
	options: {
		doNotFollow: { path: 'node_modules' },
		exclude: { path: '^(node_modules|build|build-[^/]*|\\.react-router|\\.data)/' },
		tsPreCompilationDeps: false,
		tsConfig: { fileName: 'tsconfig.json' },
		enhancedResolveOptions: {
			exportsFields: ['exports'],
			conditionNames: ['import', 'require', 'node', 'default', 'types'],
			extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.d.ts'],
		},
	},
}
