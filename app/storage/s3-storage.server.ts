import { Readable } from 'node:stream'
import {
	CopyObjectCommand,
	DeleteObjectCommand,
	GetObjectCommand,
	paginateListObjectsV2,
	S3Client,
	S3ServiceException,
} from '@aws-sdk/client-s3'
import { Upload } from '@aws-sdk/lib-storage'
import type { FileStorageConfig } from '../config.server.ts'
import { FileNotFound, StorageUnavailable, type FileStorage } from './contract.server.ts'

type S3Config = Extract<FileStorageConfig, { kind: 's3' }>

/** Multipart parts: memory per upload in flight is about partSize × queueSize (32 MiB). */
const PART_BYTES = 8 * 1024 * 1024
const PARTS_IN_FLIGHT = 4

/**
 * Files in an S3-compatible bucket through the AWS SDK v3: AWS S3, Cloudflare R2 (region
 * "auto"), Supabase Storage's S3 endpoint and MinIO (path-style). Uploads stream as multipart
 * uploads (lib-storage), reads are ranged GETs streamed as they arrive.
 */
export class S3FileStorage implements FileStorage {
	readonly kind = 's3' as const
	readonly client: S3Client
	readonly #bucket: string
	readonly #prefix: string

	constructor(config: S3Config) {
		this.#bucket = config.bucket
		this.#prefix = config.prefix
		this.client = new S3Client({
			region: config.region,
			endpoint: config.endpoint,
			forcePathStyle: config.forcePathStyle,
			credentials: config.credentials,
			// Checksums only where S3 requires them: R2, Supabase and older MinIO refuse the
			// aws-chunked trailers the SDK would otherwise add to every upload.
			requestChecksumCalculation: 'WHEN_REQUIRED',
			responseChecksumValidation: 'WHEN_REQUIRED',
			maxAttempts: 3,
			requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
		})
	}

	#key(key: string) {
		if (key.split('/').some((part) => part === '..' || part === '')) {
			throw new Error('file key outside the storage')
		}
		return `${this.#prefix}${key}`
	}

	async write(key: string, body: Readable | Buffer | string) {
		const upload = new Upload({
			client: this.client,
			params: { Bucket: this.#bucket, Key: this.#key(key), Body: body },
			partSize: PART_BYTES,
			queueSize: PARTS_IN_FLIGHT,
			// a failed upload aborts its multipart upload: no orphaned parts to pay for
			leavePartsOnError: false,
		})
		try {
			await upload.done()
		} catch (error) {
			throw storageError(error, key)
		}
	}

	async read(key: string, range: { start?: number; end?: number } = {}) {
		const start = range.start ?? 0
		const wanted = start > 0 || range.end !== undefined
		try {
			const answer = await this.client.send(
				new GetObjectCommand({
					Bucket: this.#bucket,
					Key: this.#key(key),
					Range: wanted ? `bytes=${start}-${range.end ?? ''}` : undefined,
				}),
			)
			return answer.Body as Readable
		} catch (error) {
			// a range that starts at the end: nothing left to read
			if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 416) {
				return Readable.from([])
			}
			throw storageError(error, key)
		}
	}

	async move(from: string, to: string) {
		try {
			await this.client.send(
				new CopyObjectCommand({
					Bucket: this.#bucket,
					Key: this.#key(to),
					// each segment encoded, the slashes kept: servers that decode the copy source
					// with decodeURI (s3rver) never turn %2F back into a slash
					CopySource: `${this.#bucket}/${this.#key(from).split('/').map(encodeURIComponent).join('/')}`,
				}),
			)
		} catch (error) {
			throw storageError(error, from)
		}
		await this.remove(from)
	}

	async remove(key: string) {
		try {
			await this.client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: this.#key(key) }))
		} catch (error) {
			const failure = storageError(error, key)
			if (!(failure instanceof FileNotFound)) throw failure
		}
	}

	async *list(prefix: string) {
		try {
			const pages = paginateListObjectsV2(
				{ client: this.client },
				{ Bucket: this.#bucket, Prefix: this.#key(prefix.replace(/\/$/, '')) + '/' },
			)
			for await (const page of pages) {
				for (const object of page.Contents ?? []) {
					if (!object.Key) continue
					yield {
						key: object.Key.slice(this.#prefix.length),
						modifiedAt: object.LastModified ?? new Date(),
					}
				}
			}
		} catch (error) {
			throw storageError(error, prefix)
		}
	}
}

/** The SDK's errors as FileNotFound (the object is not there) or StorageUnavailable. */
function storageError(error: unknown, key: string) {
	if (error instanceof S3ServiceException) {
		const status = error.$metadata.httpStatusCode
		if ((status === 404 || error.name === 'NoSuchKey') && error.name !== 'NoSuchBucket') {
			return new FileNotFound(key)
		}
		return new StorageUnavailable(`file storage answered ${status ?? '?'} ${error.name}`, {
			cause: error,
		})
	}
	if (error instanceof FileNotFound || error instanceof StorageUnavailable) return error
	return new StorageUnavailable('file storage unreachable', { cause: error })
}
