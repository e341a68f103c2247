// CPU time of a bench's processes, from /proc (Linux).
import { readdirSync, readFileSync } from 'node:fs'

/** CPU ms used so far by each process below `pid` (the embedded PostgreSQL and its backends). */
export function childrenCpuMs(pid: number, into = new Map<number, number>()) {
	let children: number[] = []
	try {
		for (const task of readdirSync(`/proc/${pid}/task`)) {
			const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim()
			if (text) children.push(...text.split(' ').map(Number))
		}
	} catch {
		children = [] // gone meanwhile
	}
	for (const child of children) {
		try {
			into.set(child, cpuMsOf(child))
		} catch {
			continue
		}
		childrenCpuMs(child, into)
	}
	return into
}

/** CPU time (user + system) the process has used so far, in ms. */
export function cpuMsOf(pid: number) {
	// after the command name (which may hold spaces): fields 14 and 15 are utime and stime
	const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
	const ticksPerSecond = 100
	return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond
}
