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
	build: { assetsInlineLimit: 0 },
})
