import type { Config } from '@react-router/dev/config'

export default {
	ssr: true,
	// The whole route manifest is one cached file (3 kB gzipped) instead of a partial manifest
	// matched, serialised and inlined into every page: decision 0043. The server's split of the
	// build by first segment (app/server/routes-by-first-segment.server.ts) depends on it and
	// turns itself off in 'lazy' mode, whose /__manifest requests name routes of any segment.
	routeDiscovery: { mode: 'initial' },
	appDirectory: 'app',
	// BUILD_DIR lets two test runs in one tree keep separate builds.
	buildDirectory: process.env.BUILD_DIR ?? 'build',
} satisfies Config
