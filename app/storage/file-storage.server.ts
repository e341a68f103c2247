import type { Readable } from 'node:stream'
import { getConfig, type FileStorageConfig } from '../config.server.ts'
import { singleton } from '../utils/singleton.server.ts'
import { LocalFileStorage } from './local-storage.server.ts'

/**
 * Where uploaded files live: DATA_DIR/uploads on one machine, or an S3-compatible bucket
 * (AWS S3, Cloudflare R2, Supabase Storage, MinIO) when web and worker processes run on
 * different machines (decision 0036). Keys are relative paths such as "pending/<id>.csv".
 * Everything streams: no file is held in memory whole.
 */
export interface FileStorage {
	readonly kind: FileStorageConfig['kind']
	/** Streams `body` into `key` (replacing it); the file appears whole or not at all. */
	write(key: string, body: Readable | Buffer | string): Promise<void>
	/** The file's bytes from `start` (default 0) to `end` (inclusive; default the end). */
	read(key: string, range?: { start?: number; end?: number }): Promise<Readable>
	move(from: string, to: string): Promise<void>
	/** A missing file is not an error. */
	remove(key: string): Promise<void>
	list(prefix: string): AsyncIterable<{ key: string; modifiedAt: Date }>
}

/** The file is not there (never written, removed, or expired). */
export class FileNotFound extends Error {
	constructor(key: string) {
		super(`no stored file ${key}`)
		this.name = 'FileNotFound'
	}
}

/**
 * The storage refused or could not be reached. `reason` is short and safe to show a person
 * ("file storage answered 403 AccessDenied", "file storage unreachable"); the cause is logged.
 */
export class StorageUnavailable extends Error {
	readonly reason: string
	constructor(reason: string, options?: { cause?: unknown }) {
		super(`file storage failed: ${reason}`, options)
		this.name = 'StorageUnavailable'
		this.reason = reason
	}
}

/** The S3 client (the AWS SDK: ~35 MB and a second to load) is loaded only when configured. */
export async function createFileStorage(config: FileStorageConfig): Promise<FileStorage> {
	if (config.kind === 'local') return new LocalFileStorage(config.dir)
	const { S3FileStorage } = await import('./s3-storage.server.ts')
	return new S3FileStorage(config)
}

/** The configured storage (made again when the configuration is reloaded, as tests do). */
export function fileStorage(): Promise<FileStorage> {
	const config = getConfig()
	const cached = singleton('file-storage', () => ({
		config,
		storage: createFileStorage(config.fileStorage),
	}))
	if (cached.config !== config) {
		cached.config = config
		cached.storage = createFileStorage(config.fileStorage)
	}
	return cached.storage
}

/** Reads a small file (metadata, a preview) whole. */
export async function readSmallFile(
	storage: FileStorage,
	key: string,
	range?: { start?: number; end?: number },
) {
	const chunks: Buffer[] = []
	for await (const chunk of await storage.read(key, range)) chunks.push(chunk as Buffer)
	return Buffer.concat(chunks)
}
