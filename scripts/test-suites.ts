// `npm test`'s last step: Vitest and Playwright side by side (decision 0042). Vitest's longest
// files wait on processes they kill and restart, using half of a 2-core machine; the browser
// suite fills the rest. Playwright's output streams as it comes; Vitest's is kept and printed
// whole when it ends, so the two never interleave. Exits non-zero when either suite fails.
import { spawn } from 'node:child_process'

function run(script: string, stream: boolean) {
	const started = Date.now()
	const child = spawn('npm', ['run', script], {
		stdio: ['ignore', stream ? 'inherit' : 'pipe', stream ? 'inherit' : 'pipe'],
	})
	const output: Buffer[] = []
	child.stdout?.on('data', (chunk: Buffer) => output.push(chunk))
	child.stderr?.on('data', (chunk: Buffer) => output.push(chunk))
	return new Promise<{ script: string; code: number; seconds: number; output: string }>((resolve) =>
		child.once('close', (code, signal) =>
			resolve({
				script,
				code: code ?? (signal ? 1 : 0),
				seconds: Math.round((Date.now() - started) / 1000),
				output: Buffer.concat(output).toString(),
			}),
		),
	)
}

const unit = run('test:unit', false).then((result) => {
	process.stdout.write(`\n----- npm run test:unit -----\n${result.output}`)
	return result
})
const results = await Promise.all([unit, run('test:e2e', true)])
for (const { script, code, seconds } of results) {
	console.log(
		`npm run ${script}: ${code === 0 ? 'passed' : `failed (exit ${code})`} in ${seconds} s`,
	)
}
process.exit(results.some((r) => r.code !== 0) ? 1 : 0)
