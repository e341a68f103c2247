// `npm run bench:webhooks`: BENCH_EVENTS (10,000) events, each committed in its own
// transaction at BENCH_RATE (100) a second, through the outbox, the relay and one pg-boss job
// per delivery (signed, to a local receiver that verifies every signature), against a bare loop
// posting the same signed bodies to the same receiver at the same rate, in the same run. Prints
// throughput and p50/p99 from commit (or, for the loop, from send) to receipt; goal: p99 <= 2 s
// at 100 events a second. Then a burst (BENCH_BURST, 2,000 events committed at once; 0: none)
// for the pipeline's top throughput beside the bare loop's with as many requests in flight. The
// bare loop runs first; the pipeline's receipts are waited for BENCH_WAIT_SECONDS (120).
// The workers run in this process on a fresh embedded PostgreSQL. The load average is printed
// beside each figure: on a shared machine the figures mean little without it.
import os from 'node:os'
import { Webhook } from 'standardwebhooks'
import { startWebhookReceiver } from '../tests/fakes/webhook-receiver/server.ts'
import { startBenchDatabase } from './database.ts'

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000)
const RATE = Number(process.env.BENCH_RATE ?? 100)
const BURST = Number(process.env.BENCH_BURST ?? 2000)
const IN_FLIGHT = 16
const COMMITS_IN_FLIGHT = 16
/** How long the pipeline's receipts are waited for after the last commit. */
const WAIT_MS = Number(process.env.BENCH_WAIT_SECONDS ?? 120) * 1000

const receiver = await startWebhookReceiver()
const pg = await startBenchDatabase('webhooks', {
	ALLOW_PRIVATE_URLS: 'true',
	WORKERS: '4',
	// the producer's commits queue for a connection on a loaded machine: they wait, not fail
	DB_CONNECT_TIMEOUT_MS: '60000',
})
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function percentile(values: number[], p: number) {
	const sorted = [...values].sort((a, b) => a - b)
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN
}
const ms = (v: number) => `${Math.round(v)} ms`
const load = () =>
	`load ${os
		.loadavg()
		.map((l) => l.toFixed(1))
		.join(' / ')} on ${os.cpus().length} cores`

try {
	const { db } = await import('../db/index.server.ts')
	const { migrateToLatest } = await import('../db/migrate.ts')
	await migrateToLatest(db)
	const { insertUser } = await import('../tests/support/factories.ts')
	const { loadAccountContext } = await import('../app/context.server.ts')
	const { createEndpoint } = await import('../app/services/webhooks/endpoints.server.ts')
	const { recordEvent } = await import('../app/services/webhooks/record.server.ts')
	const { startWorkers } = await import('../app/jobs/worker.server.ts')
	const { stopBoss } = await import('../app/jobs/boss.server.ts')

	const user = await insertUser(db)
	const me = await loadAccountContext(db, user)
	const { id: endpointId, secret } = await createEndpoint(me, {
		intent: 'create',
		url: `${receiver.url}/bench`,
		events: ['job.failed'],
		workspaces: [],
	})
	receiver.secrets.push(secret)

	/** Commits `count` events (each its own transaction), `rate` a second (0: at once). */
	async function commitEvents(tag: string, count: number, rate: number) {
		const committedAt = new Map<string, number>()
		const started = performance.now()
		const one = async (i: number) => {
			const message = `${tag}-${i}`
			await db.transaction().execute((trx) =>
				recordEvent(trx, {
					accountId: user.id,
					workspaceId: null,
					type: 'webhook.test',
					endpointId,
					data: { endpoint_id: endpointId, message },
				}),
			)
			committedAt.set(message, Date.now())
		}
		if (rate === 0) {
			for (let i = 0; i < count; i += 50)
				await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, k) => one(i + k)))
		} else {
			// as many commits in flight as the pool has connections: a machine too loaded to commit
			// 100 a second falls behind the pace (printed) instead of timing out its connections
			const pending = new Set<Promise<void>>()
			for (let i = 0; i < count; i++) {
				const due = started + (i * 1000) / rate
				const wait = due - performance.now()
				if (wait > 0) await sleep(wait)
				while (pending.size >= COMMITS_IN_FLIGHT) await Promise.race(pending)
				const commit = one(i).finally(() => pending.delete(commit))
				pending.add(commit)
			}
			await Promise.all(pending)
		}
		const seconds = (performance.now() - started) / 1000
		console.log(
			`  ${tag}: ${count.toLocaleString('en')} events committed in ${seconds.toFixed(1)} s = ${(count / seconds).toFixed(0)}/s (${load()})`,
		)
		return committedAt
	}

	async function received(tag: string, count: number, timeoutMs: number) {
		const deadline = Date.now() + timeoutMs
		// the first receipt of each event, read incrementally: rescanning every receipt at each
		// check took CPU from the pipeline being measured on a loaded machine
		const first = new Map<string, number>()
		let scanned = 0
		const scan = () => {
			for (; scanned < receiver.received.length; scanned++) {
				const r = receiver.received[scanned]!
				const m = String(r.payload?.data.message)
				if (m.startsWith(`${tag}-`) && !first.has(m)) first.set(m, r.receivedAt)
			}
		}
		for (scan(); first.size < count && Date.now() < deadline; scan()) await sleep(250)
		// a receipt whose signature did not verify has no payload, so no message to count it by
		const unverified = receiver.received
			.filter((r) => r.path === '/bench' || r.path === '/bare')
			.filter((r) => r.verifiedWith.length === 0).length
		return { first, unverified }
	}

	/** The bare loop: the same signed POSTs from a plain loop, `rate` a second (0: as fast as it goes). */
	async function bareLoop(tag: string, count: number, rate: number) {
		const sentAt = new Map<string, number>()
		const webhook = new Webhook(secret)
		const started = performance.now()
		let inFlight = 0
		const pending: Promise<void>[] = []
		for (let i = 0; i < count; i++) {
			if (rate > 0) {
				const wait = started + (i * 1000) / rate - performance.now()
				if (wait > 0) await sleep(wait)
			}
			while (inFlight >= IN_FLIGHT) await sleep(1)
			const message = `${tag}-${i}`
			const id = `msg_bare${i}`
			const body = JSON.stringify({
				id,
				type: 'webhook.test',
				timestamp: new Date().toISOString(),
				data: { endpoint_id: endpointId, message },
			})
			const now = new Date()
			sentAt.set(message, Date.now())
			inFlight++
			pending.push(
				fetch(`${receiver.url}/bare`, {
					method: 'POST',
					headers: {
						'content-type': 'application/json',
						'webhook-id': id,
						'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
						'webhook-signature': webhook.sign(id, now, body),
					},
					body,
				})
					.then((r) => r.arrayBuffer())
					.then(() => void inFlight--),
			)
		}
		await Promise.all(pending)
		return sentAt
	}

	function report(
		name: string,
		start: Map<string, number>,
		first: Map<string, number>,
		unverified: number,
	) {
		const latencies = [...start].filter(([m]) => first.has(m)).map(([m, t]) => first.get(m)! - t)
		const firstStart = Math.min(...start.values())
		const lastReceipt = Math.max(...first.values())
		const seconds = (lastReceipt - firstStart) / 1000
		return `${name}: ${first.size.toLocaleString('en')}/${start.size.toLocaleString('en')} received in ${seconds.toFixed(1)} s = ${(first.size / seconds).toFixed(0)}/s; p50 ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))}, max ${ms(Math.max(...latencies))}; signatures not verified: ${unverified} (${load()})`
	}

	const lines: string[] = []
	const print = (line: string) => {
		lines.push(line)
		console.log(line)
	}
	print(
		`webhooks bench: ${EVENTS.toLocaleString('en')} events at ${RATE}/s to a local receiver (standardwebhooks verifier on every request); at the start: ${load()}`,
	)
	// the bare loop first: a backlog the pipeline left behind would take its CPU
	const bare = await bareLoop('bare', EVENTS, RATE)
	const bareGot = await received('bare', EVENTS, 60_000)
	print(
		report(
			'  bare loop, same receiver (send → receipt)          ',
			bare,
			bareGot.first,
			bareGot.unverified,
		),
	)
	if (BURST > 0) {
		const bareBurst = await bareLoop('bareburst', BURST, 0)
		const bareBurstGot = await received('bareburst', BURST, 60_000)
		print(
			report(
				`  bare loop, ${IN_FLIGHT} in flight, unpaced                  `,
				bareBurst,
				bareBurstGot.first,
				bareBurstGot.unverified,
			),
		)
	}
	const workers = await startWorkers({ concurrency: 4 })
	const paced = await commitEvents('paced', EVENTS, RATE)
	const pacedGot = await received('paced', EVENTS, WAIT_MS)
	print(
		report(
			'  outbox → pg-boss → signed POST (commit → receipt)',
			paced,
			pacedGot.first,
			pacedGot.unverified,
		),
	)
	const latencies = [...paced]
		.filter(([m]) => pacedGot.first.has(m))
		.map(([m, t]) => pacedGot.first.get(m)! - t)
	const p99 = percentile(latencies, 99)
	print(
		`  goal p99 <= 2 s at ${RATE}/s: ${p99 <= 2000 && pacedGot.first.size === EVENTS ? 'met' : 'NOT met'} (${ms(p99)})`,
	)
	if (BURST > 0) {
		const burst = await commitEvents('burst', BURST, 0)
		const burstGot = await received('burst', BURST, WAIT_MS)
		print(
			report(
				`  burst of ${BURST.toLocaleString('en')} committed at once (pipeline)        `,
				burst,
				burstGot.first,
				burstGot.unverified,
			),
		)
	}
	console.log(`\n${lines.join('\n')}`)
	await workers.stop()
	await stopBoss()
	await db.destroy()
} finally {
	await receiver.close()
	await pg.stop()
}
