import pino from 'pino'
import { singleton } from './singleton.server.ts'

export const logger = singleton('logger', () =>
	pino({ level: process.env.LOG_LEVEL ?? (appMode() === 'test' ? 'silent' : 'info') }),
)

/** The app's mode: an entry point keeps it in APP_MODE, as NODE_ENV then names the libraries' builds. */
function appMode() {
	return process.env.APP_MODE ?? process.env.NODE_ENV
}
