import pino from 'pino'
import { singleton } from './singleton.server.ts'

export const logger = singleton('logger', () =>
	pino({ level: process.env.LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info') }),
)
