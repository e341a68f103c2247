// Imported first by server.ts and worker.ts (see memory-limits.server.ts, decision 0029): a
// process started without the limits replaces itself (same pid) with them set.
import { missingMemoryLimits } from './memory-limits.server.ts'

const missing = missingMemoryLimits(process.execArgv, process.env)
// process.execve exists on Linux and macOS (not Windows), where it is the only way.
if ((missing.flags.length > 0 || Object.keys(missing.env).length > 0) && process.execve) {
	process.execve(
		process.execPath,
		[process.execPath, ...missing.flags, ...process.execArgv, ...process.argv.slice(1)],
		{ ...process.env, ...missing.env },
	)
}
