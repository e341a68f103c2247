// `node scripts/run-together.ts typecheck lint build`: npm scripts that neither reads what
// another writes, run at once (each mostly on one core), each one's output printed whole as it
// ends. Exits with the first failure's code once all have ended, so every failure is shown.
import { spawn } from 'node:child_process'

const scripts = process.argv.slice(2)
const started = Date.now()
const codes = await Promise.all(
	scripts.map(
		(script) =>
			new Promise<number>((resolve) => {
				const child = spawn('npm', ['run', '--silent', script], {
					stdio: ['ignore', 'pipe', 'pipe'],
				})
				const output: Buffer[] = []
				child.stdout.on('data', (chunk: Buffer) => output.push(chunk))
				child.stderr.on('data', (chunk: Buffer) => output.push(chunk))
				child.on('close', (code, signal) => {
					const seconds = ((Date.now() - started) / 1000).toFixed(0)
					const outcome = code === 0 ? 'passed' : `failed (${signal ?? `exit code ${code}`})`
					process.stdout.write(`\n> npm run ${script}: ${outcome} in ${seconds} s\n`)
					process.stdout.write(Buffer.concat(output))
					resolve(code ?? 1)
				})
			}),
	),
)
process.exit(codes.find((code) => code !== 0) ?? 0)
