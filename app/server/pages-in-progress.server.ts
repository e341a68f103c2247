// At most `limit` page loads are worked on at once; the others wait their turn, first come
// first served, before any work is done for them (decision 0049). One Node thread renders
// every page: 50 loads started together each park on the database, interleave, and keep
// their objects alive across every garbage collection meanwhile, so the last of them waits
// for all the others. A slot is held at most `holdMs`: a loader that waits on something slow
// (an outside service, a lock) then stops counting, and cannot keep the others out. A load
// waits at most `maxWaitMs`: past it, it gets no slot, and its answer is a 503.

export type PagesInProgress = {
	/**
	 * Waits for a slot; the function it resolves to gives the slot back (more calls: no-op).
	 * Null when no slot came within the longest wait.
	 */
	enter(): Promise<(() => void) | null>
	readonly inProgress: number
	readonly waiting: number
}

export function pagesInProgress({
	limit,
	holdMs,
	maxWaitMs = Infinity,
}: {
	/** 0: no limit */
	limit: number
	holdMs: number
	maxWaitMs?: number
}): PagesInProgress {
	let inProgress = 0
	const queue: (() => void)[] = []
	const noop = () => {}
	const take = () => {
		inProgress++
		let held = true
		const leave = () => {
			if (!held) return
			held = false
			clearTimeout(timer)
			inProgress--
			queue.shift()?.()
		}
		const timer = setTimeout(leave, holdMs)
		timer.unref()
		return leave
	}
	return {
		enter() {
			if (limit === 0) return Promise.resolve(noop)
			if (inProgress < limit) return Promise.resolve(take())
			return new Promise((resolve) => {
				const admit = () => {
					clearTimeout(timer)
					resolve(take())
				}
				const timer = Number.isFinite(maxWaitMs)
					? setTimeout(() => {
							const at = queue.indexOf(admit)
							if (at !== -1) queue.splice(at, 1)
							resolve(null)
						}, maxWaitMs)
					: undefined
				timer?.unref()
				queue.push(admit)
			})
		},
		get inProgress() {
			return inProgress
		},
		get waiting() {
			return queue.length
		},
	}
}
