import { spawn, type ChildProcess } from 'node:child_process'

/**
 * `npm run worker` (node worker.ts) as separate processes, for tests where this process
 * plays the web process. `killAll` ends whatever is still running.
 */
export type WorkerProcesses = ReturnType<typeof workerProcesses>

export function workerProcesses(env: Record<string, string> = {}) {
	const children = new Set<ChildProcess>()

	function start() {
		const child = spawn(process.execPath, ['worker.ts'], {
			env: {
				...process.env,
				WORKERS: '2',
				JOB_HEARTBEAT_SECONDS: '10',
				JOB_MONITOR_SECONDS: '1',
				LOG_LEVEL: 'warn',
				NODE_ENV: 'test',
				...env,
			},
			stdio: ['ignore', 'pipe', 'pipe'],
		})
		children.add(child)
		child.once('exit', () => children.delete(child))
		let output = ''
		child.stdout!.on('data', (d) => (output += d))
		child.stderr!.on('data', (d) => (output += d))
		const ready = new Promise<void>((resolve, reject) => {
			child.stdout!.on('data', () => output.includes('workers are running') && resolve())
			child.once('exit', (code) => reject(new Error(`worker exited (${code}): ${output}`)))
		})
		return { child, ready, output: () => output }
	}

	function killAll() {
		for (const child of children) child.kill('SIGKILL')
	}

	return { start, killAll }
}
