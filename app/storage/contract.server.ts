import type { Readable } from 'node:stream'
import type { FileStorageConfig } from '../config.server.ts'

// What every file storage is and the errors it throws: a leaf module, so the storages
// (local, S3) and the module that picks one import it without importing each other.

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
