import { Resolver } from 'node:dns'

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

type Kind = 'TXT' | 'MX' | 'A' | 'CNAME'

/** One distinct question of a run, waiting for a slot or in flight. */
type Question = {
	kind: Kind
	name: string
	attempt: number
	settle: (answer: Answer<unknown>) => void
}

const joinTxt = (records: string[][]) =>
	records.map((chunks) => (chunks.length === 1 ? chunks[0]! : chunks.join('')))
const NO_RECORDS: Answer<never> = Object.freeze({ ok: true, records: Object.freeze([]) as never[] })

/**
 * The health checks' resolver: bounded queries in flight, one retry of a transient failure,
 * and each name/type asked once per run (1,000 domains share `_spf.google.com`).
 *
 * Built for CPU per question (decision 0105): a run asks ~10 distinct questions a domain, and
 * `bench:domain-health` compares it with a bare loop that sends the same questions. So each
 * question is one promise (the memo's, resolved from c-ares' callback, the slot passed on in the
 * same callback), with no semaphore, retry or mapping layers of promises around it, and the memo
 * is a map per record type (no key string built per lookup).
 */
export function createDnsClient(options: DnsOptions = {}) {
	const resolver = new Resolver({ timeout: options.timeoutMs ?? 1500, tries: options.tries ?? 2 })
	if (options.servers?.length) resolver.setServers(options.servers)
	const limit = options.concurrency ?? 64
	const retries = options.retries ?? 1
	const retryDelayMs = options.retryDelayMs ?? 250
	const memo: Record<Kind, Map<string, Promise<Answer<unknown>>>> = {
		TXT: new Map(),
		MX: new Map(),
		A: new Map(),
		CNAME: new Map(),
	}
	let active = 0
	let peak = 0
	let sent = 0
	// a queue read from `head` (Array#shift is linear: thousands wait at the start of a run)
	let waiting: (Question | undefined)[] = []
	let head = 0

	function send(q: Question) {
		sent++
		if (++active > peak) peak = active
		const done = (error: NodeJS.ErrnoException | null, records: unknown[]) => {
			// the slot passes straight to the next waiter
			active--
			const next = waiting[head]
			if (next) {
				waiting[head++] = undefined
				if (head > 1024 && head * 2 > waiting.length) {
					waiting = waiting.slice(head)
					head = 0
				}
				send(next)
			}
			if (!error)
				return q.settle({
					ok: true,
					records: q.kind === 'TXT' ? joinTxt(records as string[][]) : records,
				})
			const code = error.code ?? 'ERROR'
			if (NONE.has(code)) return q.settle(NO_RECORDS)
			if (!TRANSIENT.has(code) || q.attempt >= retries) return q.settle({ ok: false, code })
			q.attempt++
			setTimeout(() => queue(q), retryDelayMs)
		}
		switch (q.kind) {
			case 'TXT':
				return resolver.resolveTxt(q.name, done)
			case 'MX':
				return resolver.resolveMx(q.name, done)
			case 'A':
				return resolver.resolve4(q.name, done)
			case 'CNAME':
				return resolver.resolveCname(q.name, done)
		}
	}
	function queue(q: Question) {
		if (active < limit) send(q)
		else waiting.push(q)
	}

	function ask<T>(kind: Kind, name: string): Promise<Answer<T>> {
		const asked = memo[kind]
		const key = name.toLowerCase()
		let answer = asked.get(key)
		if (!answer) {
			answer = new Promise((settle) => queue({ kind, name: key, attempt: 0, settle }))
			asked.set(key, answer)
		}
		return answer as Promise<Answer<T>>
	}

	return {
		txt: (name: string) => ask<string>('TXT', name),
		mx: (name: string) => ask<Mx>('MX', name),
		a: (name: string) => ask<string>('A', name),
		cname: (name: string) => ask<string>('CNAME', name),
		/** the most queries that were in flight at once */
		peak: () => peak,
		/** queries sent, retries included */
		sent: () => sent,
		/** each distinct name/type asked (the bench replays them) */
		asked: () =>
			(Object.keys(memo) as Kind[]).flatMap((type) =>
				[...memo[type].keys()].map((name) => ({ type, name })),
			),
	}
}

export type DnsClient = ReturnType<typeof createDnsClient>
