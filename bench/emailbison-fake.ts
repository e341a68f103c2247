// The EmailBison fake for `npm run bench:emailbison`, in a process of its own (forked with an
// IPC channel): its JSON work and its 100,000 leads in memory are not the uploader's CPU,
// heap or garbage collection. Answers the bench's questions over IPC.
import { startFakeEmailBison } from '../tests/fakes/emailbison/server.ts'

type Ask =
	| { id: number; op: 'latency'; ms: number }
	| { id: number; op: 'clear-calls' }
	| { id: number; op: 'stats'; campaign: string }

const eb = await startFakeEmailBison({ workspaces: 3 })
let latencyMs = 0
process.send!({ ready: true, url: eb.url, superAdminKey: eb.superAdminKey })
process.on('message', (ask: Ask) => {
	let answer: unknown = null
	if (ask.op === 'latency') {
		latencyMs = ask.ms
		eb.setLatency(ask.ms)
	} else if (ask.op === 'clear-calls') {
		eb.calls.length = 0
		eb.timings.length = 0
	} else {
		// the time between an answer and the next call's arrival is the uploader's (its work
		// and the machine's scheduling); the time past the latency within a call is the fake's
		let between = 0
		let overLatency = 0
		eb.timings.forEach((t, i) => {
			overLatency += Math.max(0, t.answered - t.arrived - latencyMs)
			const next = eb.timings[i + 1]
			if (next) between += Math.max(0, next.arrived - t.answered)
		})
		const campaign = [...eb.campaigns.values()].find((c) => c.name === ask.campaign)
		answer = {
			upserts: eb.count('POST /api/leads/create-or-update/multiple'),
			attaches: eb.calls.filter((c) => c.endsWith('/attach-leads')).length,
			total: eb.calls.length,
			inCampaign: campaign?.leads.length ?? 0,
			peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
			betweenCallsMs: Math.round(between),
			fakeOverLatencyMs: Math.round(overLatency),
		}
	}
	process.send!({ id: ask.id, answer })
})
process.on('disconnect', () => void eb.close().then(() => process.exit(0)))
