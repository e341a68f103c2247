import type { Config } from '@react-router/dev/config'

// The framework ceiling of `npm run bench` (bench/framework/README.md): built like the app.
export default {
	ssr: true,
	appDirectory: 'app',
	buildDirectory: 'build',
} satisfies Config
