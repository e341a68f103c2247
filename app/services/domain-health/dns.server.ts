import { Resolver } from 'node:dns/promises'

/**
 * One DNS answer as the health checks read it: records (an empty list is a real "none": the
 * name or the type does not exist), or a failure (timeout, SERVFAIL, refused) that must never
 * be read as "none" (issue 38 point 5).
 */
export type Answer<T> = { ok: true; records: T[] } | { ok: false; code: string }

export type Mx = { priority: number; exchange: string }

/** NXDOMAIN and NODATA: the answer is "there is no such record". */
const NONE = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN', 'ENONAME'])
/** Failures worth one more try (a busy or flaky server), after a short pause. */
const TRANSIENT = new Set(['ETIMEOUT', 'ESERVFAIL', 'ECONNREFUSED', 'EREFUSED', 'ECANCELLED'])

export type DnsOptions = {
	/** DNS_SERVERS; unset: the system's */
	servers?: string[]
	/** queries in flight at once, over every domain of a run */
	concurrency?: number
	/** per try, in ms (c-ares) */
	timeoutMs?: number
	tries?: number
	/** our own retries of a transient failure */
	retries?: number
	retryDelayMs?: number
}

/**
 * A counting semaphore: at most `limit` tasks running at once. No async frames of its own: a
 * health run asks ~10 questions a domain, and each layer of promises per question is CPU the
 * bare loop of `bench:domain-health` does not spend (decision 0100).
 */
export function semaphore(limit: number) {
	let active = 0
	let peak = 0
	// a queue read from `head` (Array#shift is linear: thousands wait at the start of a run)
	let waiting: (() => void)[] = []
	let head = 0
	const release = () => {
		const next = waiting[head]
		if (next) {
			// the slot passes straight to the next waiter
			waiting[head++] = undefined as never
			if (head > 1024 && head * 2 > waiting.length) {
				waiting = waiting.slice(head)
				head = 0
			}
			next()
		} else active--
	}
	const start = <T>(task: () => Promise<T>): Promise<T> => {
		let running: Promise<T>
		try {
			running = task()
		} catch (error) {
			running = Promise.reject(error as Error)
		}
		running.then(release, release)
		return running
	}
	return {
		run<T>(task: () => Promise<T>): Promise<T> {
			if (active < limit) {
				if (++active > peak) peak = active
				return start(task)
			}
			return new Promise<void>((resolve) => waiting.push(resolve)).then(() => start(task))
		},
		peak: () => peak,
	}
}

/**
 * The health checks' resolver: bounded queries in flight, one retry of a transient failure,
 * and each name/type asked once per run (1,000 domains share `_spf.google.com`).
 */
export function createDnsClient(options: DnsOptions = {}) {
	const resolver = new Resolver({ timeout: options.timeoutMs ?? 1500, tries: options.tries ?? 2 })
	if (options.servers?.length) resolver.setServers(options.servers)
	const gate = semaphore(options.concurrency ?? 64)
	const retries = options.retries ?? 1
	const memo = new Map<string, Promise<Answer<unknown>>>()
	let sent = 0
	const asked: { type: string; name: string }[] = []

	function once<T>(run: () => Promise<T[]>, attempt: number): Promise<Answer<T>> {
		sent++
		return gate.run(run).then(
			(records): Answer<T> => ({ ok: true, records }),
			async (error: unknown): Promise<Answer<T>> => {
				const code = (error as { code?: string }).code ?? 'ERROR'
				if (NONE.has(code)) return { ok: true, records: [] }
				if (!TRANSIENT.has(code) || attempt >= retries) return { ok: false, code }
				await new Promise((resolve) => setTimeout(resolve, options.retryDelayMs ?? 250))
				return once(run, attempt + 1)
			},
		)
	}

	function ask<T>(type: string, name: string, run: () => Promise<T[]>): Promise<Answer<T>> {
		const key = `${type} ${name.toLowerCase()}`
		let answer = memo.get(key) as Promise<Answer<T>> | undefined
		if (!answer) {
			asked.push({ type, name })
			answer = once(run, 0)
			memo.set(key, answer)
		}
		return answer
	}

	const joinTxt = (records: string[][]) => records.map((chunks) => chunks.join(''))
	return {
		txt: (name: string) => ask('TXT', name, () => resolver.resolveTxt(name).then(joinTxt)),
		mx: (name: string) => ask<Mx>('MX', name, () => resolver.resolveMx(name)),
		a: (name: string) => ask('A', name, () => resolver.resolve4(name)),
		cname: (name: string) => ask('CNAME', name, () => resolver.resolveCname(name)),
		/** the most queries that were in flight at once */
		peak: () => gate.peak(),
		/** queries sent, retries included */
		sent: () => sent,
		/** each distinct name/type asked, in order (the bench replays them) */
		asked: () => asked,
	}
}

export type DnsClient = ReturnType<typeof createDnsClient>
