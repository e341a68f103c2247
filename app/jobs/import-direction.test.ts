import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { expect, test } from 'vitest'

// Jobs depend on services, never the other way: a service that imported the job registry
// or a job definition would close a circle (definition -> service -> definition), and a
// page would load every job's code. Services queue jobs by name (enqueue.server.ts).
const FORBIDDEN =
	/(?:from\s+|import\(\s*)['"][^'"]*(?:jobs\/|\.\/)(?:registry\.server|definitions\/)[^'"]*['"]/

async function sourceFiles(dir: string): Promise<string[]> {
	const entries = await readdir(dir, { withFileTypes: true })
	const files = await Promise.all(
		entries.map((entry) => {
			const full = path.join(dir, entry.name)
			if (entry.isDirectory()) return sourceFiles(full)
			return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : []
		}),
	)
	return files.flat()
}

/** Files under `dir` importing the job registry or a job definition. */
export async function filesImportingJobDefinitions(dir: string) {
	const offenders: string[] = []
	for (const file of await sourceFiles(dir)) {
		if (FORBIDDEN.test(await readFile(file, 'utf8'))) offenders.push(path.relative('.', file))
	}
	return offenders
}

test('no service imports the job registry or a job definition', async () => {
	expect(await filesImportingJobDefinitions('app/services')).toEqual([])
})

test('what services use from app/jobs imports no definition either', async () => {
	for (const file of [
		'enqueue.server.ts',
		'boss.server.ts',
		'define.server.ts',
		'ended.server.ts',
		'payloads.ts',
	])
		expect(FORBIDDEN.test(await readFile(path.join('app/jobs', file), 'utf8')), file).toBe(false)
})

test('the scan sees such an import', async () => {
	expect(
		FORBIDDEN.test(`import { leadScrapeJob } from '../../jobs/definitions/lead-scrape.server.ts'`),
	).toBe(true)
	expect(FORBIDDEN.test(`import { jobDefinitions } from '../../jobs/registry.server.ts'`)).toBe(
		true,
	)
	expect(FORBIDDEN.test(`const { x } = await import('../../jobs/registry.server.ts')`)).toBe(true)
	expect(FORBIDDEN.test(`import { enqueue } from '../../jobs/enqueue.server.ts'`)).toBe(false)
})
