/**
 * In-process wake-ups for the worker's queue loops (decision 0096): code in the worker process
 * that has just committed jobs (the webhook relay) wakes the queue's loop, so the jobs start now
 * rather than at the loop's next poll. Other processes' jobs wait for the poll.
 */
const wakers = new Map<string, Set<() => void>>()

/** Registers a loop's wake-up for a queue; returns its removal. */
export function onWake(name: string, wake: () => void) {
	const set = wakers.get(name) ?? new Set()
	set.add(wake)
	wakers.set(name, set)
	return () => void set.delete(wake)
}

/** Wakes this process's loops of a queue (jobs for it were just committed). */
export function wakeQueue(name: string) {
	for (const wake of wakers.get(name) ?? []) wake()
}
