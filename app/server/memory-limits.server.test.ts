import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, expect, test } from 'vitest'
import {
	HEAP_GROWING_PERCENT,
	MALLOC_ARENAS,
	SEMI_SPACE_MB,
	missingMemoryLimits,
} from './memory-limits.server.ts'

// A process that starts like server.ts (apply-memory-limits first), then keeps ~30 MB of young
// objects alive while allocating, which grows an unbounded young generation to 128 MB; then
// keeps ~40 MB alive for good while making garbage that lives long enough to be promoted (as
// slow requests under load do), which grows the old space to ~200 MB with V8's default growth.
let dir: string
let entry: string
// Beside its two semi-spaces V8 may hold a few pages of the young generation while it scavenges:
// on a loaded machine the new space measured 9.25 MB with 4 MB semi-spaces
const SCAVENGE_PAGES_MB = 4
beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'leadsmith-memory-'))
	entry = path.join(dir, 'entry.mjs')
	const apply = pathToFileURL(path.resolve('app/server/apply-memory-limits.server.ts')).href
	await writeFile(
		entry,
		`import ${JSON.stringify(apply)}
import v8 from 'node:v8'
const ring = new Array(200_000)
let newSpace = 0
for (let i = 0; i < 1_500_000; i++) {
	ring[i % ring.length] = { i, s: 'x' + i, a: [i, i + 1] }
	if (i % 10_000 === 0) newSpace = Math.max(newSpace, v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size)
}
ring.fill(undefined)
const live = Array.from({ length: 400_000 }, (_, i) => ({ i, s: 'live' + i }))
const promoted = new Array(100_000)
let oldSpace = 0
for (let i = 0; i < 6_000_000; i++) {
	promoted[i % promoted.length] = { i, s: 'x' + i, a: [i, i + 1] }
	if (i % 20_000 === 0) oldSpace = Math.max(oldSpace, v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_size)
}
console.log(JSON.stringify({ pid: process.pid, execArgv: process.execArgv, arenas: process.env.MALLOC_ARENA_MAX, newSpaceMb: newSpace / 2 ** 20, oldSpaceMb: oldSpace / 2 ** 20, live: live.length }))
`,
	)
})
afterAll(() => rm(dir, { recursive: true, force: true }))

function run(env: Record<string, string | undefined>) {
	const { MALLOC_ARENA_MAX: _a, NODE_OPTIONS: _o, ...inherited } = process.env
	const child = spawn(process.execPath, [entry], {
		env: { ...inherited, ...env },
		stdio: ['ignore', 'pipe', 'inherit'],
	})
	let output = ''
	child.stdout.on('data', (chunk: Buffer) => (output += chunk))
	return new Promise<{
		spawnedPid: number
		pid: number
		execArgv: string[]
		arenas: string
		newSpaceMb: number
		oldSpaceMb: number
	}>((resolve, reject) =>
		child.once('exit', (code) =>
			code === 0
				? resolve({ spawnedPid: child.pid!, ...JSON.parse(output) })
				: reject(new Error(`exited ${code}: ${output}`)),
		),
	)
}

test('a process started without limits re-executes itself (same pid) with a bounded young generation, a slower growing old one and 2 malloc arenas', async () => {
	const result = await run({})
	expect(result.pid).toBe(result.spawnedPid)
	expect(result.execArgv).toContain(`--max-semi-space-size=${SEMI_SPACE_MB}`)
	expect(result.execArgv).toContain(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`)
	expect(result.arenas).toBe(String(MALLOC_ARENAS))
	// two semi-spaces of SEMI_SPACE_MB at most (unbounded, Node 24 grows them to 128 MB here)
	expect(result.newSpaceMb).toBeLessThanOrEqual(2 * SEMI_SPACE_MB + SCAVENGE_PAGES_MB)
	// ~110 MB over the 40 MB kept alive (V8's default growth: ~200 MB)
	expect(result.oldSpaceMb).toBeLessThan(150)
}, 120_000)

test("an operator's own limits win", async () => {
	const result = await run({ NODE_OPTIONS: '--max-semi-space-size=32', MALLOC_ARENA_MAX: '4' })
	expect(result.execArgv).not.toContain(`--max-semi-space-size=${SEMI_SPACE_MB}`)
	expect(result.arenas).toBe('4')
	// the ~30 MB of young objects kept alive grow the new space past what ours allows
	expect(result.newSpaceMb).toBeGreaterThan(2 * SEMI_SPACE_MB + SCAVENGE_PAGES_MB)
	expect(
		missingMemoryLimits(['--max-semi-space-size=8', '--heap-growing-percent=100'], {}),
	).toEqual({
		flags: [],
		env: { MALLOC_ARENA_MAX: String(MALLOC_ARENAS) },
	})
}, 120_000)
