import { randomBytes } from 'node:crypto'
import { reactRouter } from '@react-router/dev/vite'
import tailwindcss from '@tailwindcss/vite'
import { defineConfig, type Plugin } from 'vite'

/**
 * Writes build/client/version.json ({ id }) in the client build: the server reads it
 * for /build-version and the page, and the browser polls it (root.tsx).
 */
function buildVersion(): Plugin {
	const id = process.env.BUILD_ID || `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`
	return {
		name: 'leadsmith-build-version',
		apply: 'build',
		generateBundle() {
			if (this.environment.name !== 'client') return
			this.emitFile({ type: 'asset', fileName: 'version.json', source: JSON.stringify({ id }) })
		},
	}
}

export default defineConfig({
	plugins: [tailwindcss(), reactRouter(), buildVersion()],
	build: {
		assetsInlineLimit: 0,
		rolldownOptions: {
			output: {
				// Every page needs React and React Router: one chunk for them instead of many
				// small shared ones keeps the number of files a page preloads down
				// (docs/decisions/0030-sign-in-page-javascript-budget.md). Libraries only some
				// pages use (matter-js, posthog-js, the phone input) stay in their own chunks.
				codeSplitting: {
					groups: [
						{
							name: 'framework',
							test: /node_modules[\\/](react|react-dom|scheduler|react-router|turbo-stream|cookie|set-cookie-parser)[\\/]/,
						},
						// the icons (lucide-react, only those imported): one small chunk rather than one
						// file per icon on every page
						{ name: 'icons', test: /node_modules[\\/]lucide-react[\\/]/ },
						// the bundler's own helpers and the small pieces every page shares
						{
							name: 'shared',
							test: /rolldown[\\/]runtime|vite[\\/]preload-helper|app[\\/]utils[\\/](cn|forms|meta|use-hydrated|nonce|chunk-reload)\.ts|app[\\/]components[\\/]ui[\\/](button|field|toasts)\.tsx|app[\\/]services[\\/]analytics[\\/]identity\.ts/,
						},
					],
				},
			},
		},
	},
})
