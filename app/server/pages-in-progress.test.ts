import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, test } from 'vitest'
import { pagesInProgress } from './pages-in-progress.server.ts'

describe('pages in progress', () => {
	test('at most `limit` at once; the others start in the order they came, as slots come back', async () => {
		const pages = pagesInProgress({ limit: 2, holdMs: 60_000 })
		const started: number[] = []
		const leaves = new Map<number, () => void>()
		const loads = [1, 2, 3, 4, 5].map((n) =>
			pages.enter().then((leave) => {
				started.push(n)
				leaves.set(n, leave!)
			}),
		)
		await sleep(10)
		expect(started).toEqual([1, 2])
		expect(pages.waiting).toBe(3)

		leaves.get(2)!()
		leaves.get(2)!() // a second call gives nothing back twice
		await sleep(10)
		expect(started).toEqual([1, 2, 3])
		expect(pages.inProgress).toBe(2)

		leaves.get(1)!()
		leaves.get(3)!()
		await sleep(10)
		expect(started).toEqual([1, 2, 3, 4, 5])
		leaves.get(4)!()
		leaves.get(5)!()
		await Promise.all(loads)
		expect(pages.inProgress).toBe(0)
		expect(pages.waiting).toBe(0)
	})

	test('a page held past holdMs stops counting, so one slow loader cannot keep the others out', async () => {
		const pages = pagesInProgress({ limit: 1, holdMs: 50 })
		const slow = await pages.enter()
		let next = false
		const waiting = pages.enter().then((leave) => {
			next = true
			return leave
		})
		await sleep(10)
		expect(next).toBe(false)
		const leave = await waiting
		expect(next).toBe(true)
		expect(pages.inProgress).toBe(1)
		// the slow one finishing later gives back nothing it no longer holds
		slow!()
		expect(pages.inProgress).toBe(1)
		leave!()
		expect(pages.inProgress).toBe(0)
	})

	test('limit 0: nobody waits', async () => {
		const pages = pagesInProgress({ limit: 0, holdMs: 50 })
		const leaves = await Promise.all(Array.from({ length: 100 }, () => pages.enter()))
		expect(leaves).toHaveLength(100)
		expect(pages.waiting).toBe(0)
	})
})

describe('the longest wait', () => {
	test('a load that waited past maxWaitMs gets no slot (its answer is a 503), and leaves the queue', async () => {
		const pages = pagesInProgress({ limit: 1, holdMs: 60_000, maxWaitMs: 30 })
		const first = await pages.enter()
		const second = pages.enter()
		expect(pages.waiting).toBe(1)
		expect(await second).toBeNull()
		expect(pages.waiting).toBe(0)
		// the slot, given back, goes to the next one that asks, not to the one that gave up
		first!()
		const third = await pages.enter()
		expect(third).not.toBeNull()
		expect(pages.inProgress).toBe(1)
		third!()
	})
})
