import type { Config } from '@react-router/dev/config'

// The framework ceiling of `npm run bench` (bench/framework/README.md): built like the app.
export default {
	ssr: true,
	// The whole route manifest is one cached file (3 kB gzipped) instead of a partial manifest
	// matched, serialised and inlined into every page: decision 0043.
	routeDiscovery: { mode: 'initial' },
	appDirectory: 'app',
	buildDirectory: 'build',
} satisfies Config
