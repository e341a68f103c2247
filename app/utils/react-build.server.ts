import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/**
 * Which of React's builds this process runs: react/index.js picks
 * cjs/react.production.js or cjs/react.development.js by NODE_ENV at load time,
 * and the development build renders several times slower. Node's ESM loader
 * pre-parses both branches for export names, so only a module that was actually
 * evaluated (`loaded`) counts.
 */
export function loadedReactBuild(): 'production' | 'development' | 'not loaded' {
	const evaluated = Object.entries(require.cache)
		.filter(([, module]) => module?.loaded)
		.map(([file]) => file)
	const flavour = (name: string) =>
		evaluated.some((file) => file.replaceAll('\\', '/').endsWith(`/react/cjs/react.${name}.js`))
	if (flavour('development')) return 'development'
	if (flavour('production')) return 'production'
	return 'not loaded'
}
