import type { Config } from '@react-router/dev/config'

export default {
	ssr: true,
	appDirectory: 'app',
	// BUILD_DIR lets two test runs in one tree keep separate builds.
	buildDirectory: process.env.BUILD_DIR ?? 'build',
} satisfies Config
