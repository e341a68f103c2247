import { logger } from './logger.server.ts'

/**
 * Starts `work` without waiting for it. A rejection is logged, never left unhandled: an
 * unhandled rejection ends the process (a database blip did, issue 40). Lint allows no
 * other floating promise in server code (`no-floating-promises`, eslint.config.js).
 */
export function inBackground(work: Promise<unknown>, what: string) {
	work.catch((error: unknown) => logger.error({ err: error }, what))
}
