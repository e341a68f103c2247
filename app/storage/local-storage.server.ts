import { randomUUID } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { FileNotFound, StorageUnavailable, type FileStorage } from './contract.server.ts'

// Uploaded lists hold other people's personal data: only the service's user reads them.
const FILE_MODE = 0o600
const FOLDER_MODE = 0o700

/** Files in a local directory (DATA_DIR/uploads): one machine, or a shared volume. */
export class LocalFileStorage implements FileStorage {
	readonly kind = 'local' as const
	readonly root: string

	constructor(root: string) {
		this.root = path.resolve(root)
	}

	/** The file's path; a key reaching outside the root is refused. */
	pathOf(key: string) {
		const resolved = path.resolve(this.root, key)
		if (!resolved.startsWith(this.root + path.sep)) throw new Error('file key outside the storage')
		return resolved
	}

	/**
	 * The folder of `file`, made when missing: the service's own (0700), as its files are
	 * (0600). Folders above the root keep the usual mode: DATA_DIR also holds the embedded
	 * PostgreSQL, whose own user must reach it.
	 */
	async #folderOf(file: string) {
		await mkdir(path.dirname(this.root), { recursive: true })
		await mkdir(path.dirname(file), { recursive: true, mode: FOLDER_MODE })
	}

	async write(key: string, body: Readable | Buffer | string) {
		const file = this.pathOf(key)
		await this.#folderOf(file).catch((error: unknown) => {
			throw storageFailure(error)
		})
		// written next to the file and renamed: readers never see half a file
		const partial = `${file}.${randomUUID()}.part`
		try {
			const source =
				typeof body === 'string' || Buffer.isBuffer(body) ? Readable.from([body]) : body
			await pipeline(source, createWriteStream(partial, { flags: 'wx', mode: FILE_MODE }))
			await rename(partial, file)
		} catch (error) {
			await rm(partial, { force: true }).catch(() => {})
			throw storageFailure(error)
		}
	}

	async read(key: string, range: { start?: number; end?: number } = {}) {
		const file = this.pathOf(key)
		// opened first, so a missing file is FileNotFound here and not a stream error later
		const handle = await open(file, 'r').catch((error: NodeJS.ErrnoException) => {
			throw error.code === 'ENOENT' ? new FileNotFound(key) : error
		})
		return handle.createReadStream({
			start: range.start ?? 0,
			end: range.end,
			highWaterMark: 128 * 1024,
		})
	}

	async move(from: string, to: string) {
		const target = this.pathOf(to)
		await this.#folderOf(target)
		await rename(this.pathOf(from), target).catch((error: NodeJS.ErrnoException) => {
			throw error.code === 'ENOENT' ? new FileNotFound(from) : error
		})
	}

	async remove(key: string) {
		await rm(this.pathOf(key), { force: true })
	}

	async *list(prefix: string) {
		// prefixes here are folders ("pending/")
		const dir = this.pathOf(prefix.endsWith('/') ? `${prefix}.` : prefix)
		const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
			if (error.code === 'ENOENT') return [] as string[]
			throw error
		})
		for (const name of names) {
			const info = await stat(path.join(dir, name)).catch(() => null)
			if (info?.isFile()) yield { key: path.posix.join(prefix, name), modifiedAt: info.mtime }
		}
	}
}

// The disk's own failures, in words a person can act on (the S3 storage says the same kind).
const DISK_FAILURES: Record<string, string> = {
	ENOSPC: 'the disk is full',
	EDQUOT: 'the disk quota is used up',
	EFBIG: 'the file is larger than the disk allows',
	EACCES: 'the upload folder is not writable',
	EPERM: 'the upload folder is not writable',
	EROFS: 'the disk is read-only',
	EIO: 'the disk failed',
}

/** A failed write: StorageUnavailable when the disk refused it, else the error as it is. */
function storageFailure(error: unknown) {
	const reason = DISK_FAILURES[(error as NodeJS.ErrnoException | null)?.code ?? '']
	return reason ? new StorageUnavailable(reason, { cause: error }) : error
}
