import { defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * The files that start, kill and restart processes (tests/faults, tests/processes) wait more
 * than they compute and take 10 to 60 s each: they go first, so they overlap the many short
 * files instead of trailing after them on a clean checkout (where Vitest, with no timings
 * kept yet, would start the largest files first).
 */
class ProcessFilesFirst extends BaseSequencer {
	override async sort(files: TestSpecification[]) {
		const sorted = await super.sort(files)
		const waits = (file: TestSpecification) => /\/tests\/(faults|processes)\//.test(file.moduleId)
		return [...sorted.filter(waits), ...sorted.filter((file) => !waits(file))]
	}
}

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
		sequence: { sequencer: ProcessFilesFirst },
		env: {
			NODE_ENV: 'test',
			LOG_LEVEL: 'silent',
			APP_SECRET: 'test-secret-test-secret-test-secret-0123',
			// the fakes listen on 127.0.0.1 (outbound.test.ts turns the guard back on)
			ALLOW_PRIVATE_URLS: 'true',
		},
	},
})
