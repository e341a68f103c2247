import { defineConfig } from 'vitest/config'

export default defineConfig({
	test: {
		include: ['app/**/*.test.ts', 'db/**/*.test.ts', 'tests/**/*.test.ts', 'server/**/*.test.ts'],
		exclude: ['tests/e2e/**', 'node_modules/**'],
		globalSetup: ['tests/support/global-setup.ts'],
		setupFiles: ['tests/support/setup-database.ts'],
		testTimeout: 30_000,
		hookTimeout: 60_000,
		pool: 'forks',
		// the longest files wait on processes they kill and restart: 4 at once keep 2 cores busy
		maxWorkers: 4,
		env: {
			NODE_ENV: 'test',
			LOG_LEVEL: 'silent',
			APP_SECRET: 'test-secret-test-secret-test-secret-0123',
			// the fakes listen on 127.0.0.1 (outbound.test.ts turns the guard back on)
			ALLOW_PRIVATE_URLS: 'true',
		},
	},
})
