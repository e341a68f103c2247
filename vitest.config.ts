import { defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * The files that start the build's processes (`node server.ts`, `node worker.ts`) and kill and
 * restart them. They wait more than they compute and take 10 to 60 s each.
 */
const BUILT = [
	'tests/faults/**/*.test.ts',
	'tests/processes/**/*.test.ts',
	'tests/build/**/*.test.ts',
]

/**
 * The waiting files go first, so that in a run of both projects they overlap the many short
 * files instead of trailing after them on a clean checkout (where Vitest, with no timings kept
 * yet, would start the largest files first).
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
		exclude: ['tests/e2e/**', 'node_modules/**'],
		globalSetup: ['tests/support/global-setup.ts'],
		setupFiles: ['tests/support/setup-database.ts'],
		testTimeout: 30_000,
		hookTimeout: 60_000,
		pool: 'forks',
		// the longest files wait on processes they kill and restart: 4 at once keep 2 cores busy
		maxWorkers: 4,
		sequence: { sequencer: ProcessFilesFirst },
		// Two projects, which `npm run test:unit` runs side by side in two processes: `db` on 2
		// workers (its files compute), `built` on 4 (its files wait on the processes they start,
		// about 0.2 CPU seconds per second), so the waiting files no longer hold every worker
		// while a core idles (decisions 0076, 0087). A bare `vitest run` runs both, on 4 workers.
		projects: [
			{
				extends: true,
				test: {
					name: 'db',
					include: [
						'app/**/*.test.ts',
						'db/**/*.test.ts',
						'tests/**/*.test.ts',
						'server/**/*.test.ts',
					],
					exclude: ['tests/e2e/**', 'node_modules/**', ...BUILT],
				},
			},
			{ extends: true, test: { name: 'built', include: BUILT } },
		],
		env: {
			NODE_ENV: 'test',
			LOG_LEVEL: 'silent',
			APP_SECRET: 'test-secret-test-secret-test-secret-0123',
			// the fakes listen on 127.0.0.1 (outbound.test.ts turns the guard back on)
			ALLOW_PRIVATE_URLS: 'true',
		},
	},
})
