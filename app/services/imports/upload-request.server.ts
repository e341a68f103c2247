import { Readable } from 'node:stream'
import type { ReadableStream as NodeReadableStream } from 'node:stream/web'
import busboy from 'busboy'
import { getConfig } from '../../config.server.ts'
import { UploadRejected } from './csv-scan.server.ts'
import { formatBytes } from './mapping.ts'
import { receiveCsvUpload, type PendingUpload } from './uploads.server.ts'

export type UploadRequest = {
	/** the form's text fields */
	fields: Record<string, string>
	upload: PendingUpload | null
	/** why the file was refused (nothing was kept) */
	rejected: UploadRejected | null
}

/**
 * Reads a multipart upload form as it streams in (request.formData() would hold the whole
 * file in memory): the `file` part goes through receiveCsvUpload to disk, the other parts
 * are small text fields. Over UPLOAD_LIMIT_BYTES is refused with status 413 (by
 * Content-Length before anything is read, else as soon as the file passes the limit).
 */
export async function readCsvUploadRequest(
	request: Request,
	accountId: string,
): Promise<UploadRequest> {
	const limit = getConfig().UPLOAD_LIMIT_BYTES
	const tooLarge = () =>
		new UploadRejected(
			`This file is larger than ${formatBytes(limit)}. Split it and upload the parts.`,
			413,
		)
	if (Number(request.headers.get('content-length') ?? 0) > limit + 64 * 1024) {
		return { fields: {}, upload: null, rejected: tooLarge() }
	}
	const contentType = request.headers.get('content-type') ?? ''
	if (!contentType.startsWith('multipart/form-data') || !request.body) {
		return { fields: {}, upload: null, rejected: new UploadRejected('Choose a CSV file') }
	}
	const unreadable = new UploadRejected('This upload could not be read. Choose the file again.')
	let parser: busboy.Busboy
	try {
		parser = busboy({
			headers: { 'content-type': contentType },
			limits: { files: 1, fileSize: limit, fields: 20, fieldSize: 64 * 1024, parts: 25 },
		})
	} catch {
		// multipart/form-data without a boundary
		return { fields: {}, upload: null, rejected: unreadable }
	}
	const body = Readable.fromWeb(request.body as NodeReadableStream<Uint8Array>)
	return new Promise<UploadRequest>((resolve, reject) => {
		const fields: Record<string, string> = {}
		let file: Promise<PendingUpload> | null = null
		let settled = false
		const finish = (result: UploadRequest | Error) => {
			if (settled) return
			settled = true
			if (result instanceof Error) {
				body.unpipe(parser)
				body.resume()
				parser.destroy()
				reject(result)
			} else resolve(result)
		}
		const refuse = (rejected: UploadRejected) => {
			if (settled) return
			body.unpipe(parser)
			body.resume()
			parser.destroy()
			settled = true
			resolve({ fields, upload: null, rejected })
		}
		parser.on('field', (name, value) => {
			fields[name] = value
		})
		parser.on('file', (name, stream, info) => {
			if (name !== 'file' || file || !info.filename) {
				stream.resume()
				return
			}
			stream.on('limit', () => stream.destroy(tooLarge()))
			file = receiveCsvUpload({ stream, fileName: info.filename, accountId, maxBytes: limit })
			file.catch((error: unknown) => {
				if (error instanceof UploadRejected) refuse(error)
				else finish(error as Error)
			})
		})
		// A broken multipart body is the client's mistake: a message at the field, not a 500.
		parser.on('error', () => refuse(unreadable))
		parser.on('close', () => {
			if (!file) {
				finish({ fields, upload: null, rejected: new UploadRejected('Choose a CSV file') })
				return
			}
			file.then(
				(upload) => finish({ fields, upload, rejected: null }),
				() => {},
			)
		})
		body.on('error', (error) => finish(error))
		body.pipe(parser)
	})
}
