// A local fake of an S3-compatible object store (path-style addressing, as MinIO, Supabase
// Storage and the tests use), speaking the part of the S3 REST API Leadsmith calls:
// PutObject, CreateMultipartUpload / UploadPart / CompleteMultipartUpload /
// AbortMultipartUpload, GetObject (with Range, streamed), HeadObject, CopyObject,
// DeleteObject and ListObjectsV2, with S3's XML bodies and error codes. Every request must
// carry a SigV4 Authorization header for the fake's access key (else 403 AccessDenied);
// the signature itself is not recomputed. aws-chunked bodies (streaming checksums) are
// decoded. Test helpers: fail the next requests with a status and code, slow reads down,
// age an object (for expiry), and read what is stored.
import { createHash, randomBytes } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'

type StoredObject = { body: Buffer; modified: Date; etag: string; contentType: string }

export type FakeS3 = {
	url: string
	region: string
	bucket: string
	accessKeyId: string
	secretAccessKey: string
	/** the environment that points the app at this fake */
	env: Record<string, string>
	/** "METHOD /bucket/key?query" of every request, in order (" bytes=N-" after a ranged GET) */
	calls: string[]
	objects: Map<string, StoredObject>
	/** multipart uploads not completed or aborted yet, by upload id */
	uploads: Map<string, { key: string; parts: Map<number, Buffer> }>
	/** the next `count` requests (matching `method`, when given) answer `status` with `code` */
	failNext(options: { status: number; code: string; count?: number; method?: string }): void
	/** GetObject bodies are sent at most this many bytes a second (0: no limit) */
	throttleReads(bytesPerSecond: number): void
	/** moves an object's LastModified back by `ms` */
	age(key: string, ms: number): void
	close(): Promise<void>
}

const xmlEscape = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`)

function errorXml(code: string, message: string) {
	return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message><RequestId>${randomBytes(8).toString('hex')}</RequestId></Error>`
}

/** aws-chunked: `<hex size>[;chunk-signature=…]\r\n<bytes>\r\n` … `0\r\n<trailers>\r\n\r\n` */
function decodeAwsChunked(raw: Buffer) {
	const parts: Buffer[] = []
	let at = 0
	for (;;) {
		const lineEnd = raw.indexOf('\r\n', at)
		if (lineEnd < 0) break
		const size = parseInt(raw.subarray(at, lineEnd).toString('latin1').split(';')[0]!, 16)
		at = lineEnd + 2
		if (!size) break
		parts.push(raw.subarray(at, at + size))
		at += size + 2
	}
	return Buffer.concat(parts)
}

const etagOf = (body: Buffer) => `"${createHash('md5').update(body).digest('hex')}"`

export async function startFakeS3(
	options: { bucket?: string; region?: string } = {},
): Promise<FakeS3> {
	const bucket = options.bucket ?? 'leadsmith-test'
	const region = options.region ?? 'us-east-1'
	const accessKeyId = `AKFAKE${randomBytes(6).toString('hex').toUpperCase()}`
	const secretAccessKey = randomBytes(20).toString('base64url')
	const objects = new Map<string, StoredObject>()
	const uploads = new Map<string, { key: string; parts: Map<number, Buffer> }>()
	const calls: string[] = []
	let failures: { status: number; code: string; count: number; method?: string }[] = []
	let readRate = 0

	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = []
		req.on('data', (chunk: Buffer) => chunks.push(chunk))
		req.on('end', () => {
			try {
				handle(req, res, Buffer.concat(chunks))
			} catch (error) {
				send(res, 500, errorXml('InternalError', String(error)))
			}
		})
	})

	function send(res: http.ServerResponse, status: number, body = '', headers = {}) {
		res.writeHead(status, {
			'content-type': 'application/xml',
			'x-amz-request-id': randomBytes(8).toString('hex'),
			...headers,
		})
		res.end(body)
	}

	function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer) {
		const url = new URL(req.url ?? '/', 'http://fake')
		const method = req.method ?? 'GET'
		const asked = req.headers.range ? ` ${req.headers.range}` : ''
		calls.push(`${method} ${url.pathname}${url.search}${asked}`)
		const auth = String(req.headers.authorization ?? '')
		if (
			!auth.startsWith(`AWS4-HMAC-SHA256 Credential=${accessKeyId}/`) ||
			!auth.includes('Signature=') ||
			!req.headers['x-amz-date'] ||
			!req.headers['x-amz-content-sha256']
		) {
			send(res, 403, errorXml('AccessDenied', 'Access Denied (no SigV4 signature for this key)'))
			return
		}
		const failure = failures.find((f) => !f.method || f.method === method)
		if (failure) {
			if (--failure.count <= 0) failures = failures.filter((f) => f !== failure)
			send(res, failure.status, method === 'HEAD' ? '' : errorXml(failure.code, failure.code))
			return
		}
		const [, bucketName = '', ...keyParts] = url.pathname.split('/')
		const key = decodeURIComponent(keyParts.join('/'))
		if (bucketName !== bucket) {
			send(res, 404, errorXml('NoSuchBucket', 'The specified bucket does not exist'))
			return
		}
		const q = url.searchParams
		const encoding = String(req.headers['content-encoding'] ?? '')
		const streaming = String(req.headers['x-amz-content-sha256']).startsWith('STREAMING-')
		const body = encoding.includes('aws-chunked') || streaming ? decodeAwsChunked(raw) : raw

		if (!key) {
			if (method === 'GET' && q.get('list-type') === '2') return list(res, q)
			send(res, 405, errorXml('MethodNotAllowed', 'Not supported by the fake'))
			return
		}
		if (method === 'POST' && q.has('uploads')) {
			const uploadId = randomBytes(16).toString('hex')
			uploads.set(uploadId, { key, parts: new Map() })
			send(
				res,
				200,
				`<?xml version="1.0" encoding="UTF-8"?>\n<InitiateMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${xmlEscape(key)}</Key><UploadId>${uploadId}</UploadId></InitiateMultipartUploadResult>`,
			)
			return
		}
		if (q.has('uploadId')) {
			const upload = uploads.get(q.get('uploadId')!)
			if (!upload || upload.key !== key) {
				send(res, 404, errorXml('NoSuchUpload', 'The specified upload does not exist'))
				return
			}
			if (method === 'PUT') {
				upload.parts.set(Number(q.get('partNumber')), body)
				send(res, 200, '', { etag: etagOf(body) })
				return
			}
			if (method === 'DELETE') {
				uploads.delete(q.get('uploadId')!)
				send(res, 204)
				return
			}
			if (method === 'POST') {
				const numbers = [...body.toString('utf8').matchAll(/<PartNumber>(\d+)<\/PartNumber>/g)]
					.map((m) => Number(m[1]))
					.sort((a, b) => a - b)
				if (numbers.length === 0 || numbers.some((n) => !upload.parts.has(n))) {
					send(res, 400, errorXml('InvalidPart', 'One or more of the parts were not found'))
					return
				}
				const whole = Buffer.concat(numbers.map((n) => upload.parts.get(n)!))
				const etag = `"${createHash('md5').update(whole).digest('hex')}-${numbers.length}"`
				objects.set(key, {
					body: whole,
					modified: new Date(),
					etag,
					contentType: 'application/octet-stream',
				})
				uploads.delete(q.get('uploadId')!)
				send(
					res,
					200,
					`<?xml version="1.0" encoding="UTF-8"?>\n<CompleteMultipartUploadResult><Location>/${bucket}/${xmlEscape(key)}</Location><Bucket>${bucket}</Bucket><Key>${xmlEscape(key)}</Key><ETag>${etag}</ETag></CompleteMultipartUploadResult>`,
				)
				return
			}
		}
		if (method === 'PUT') {
			const source = req.headers['x-amz-copy-source']
			if (source) {
				const sourceKey = decodeURIComponent(String(source).replace(/^\/?[^/]+\//, ''))
				const original = objects.get(sourceKey)
				if (!original) {
					send(res, 404, errorXml('NoSuchKey', 'The specified key does not exist.'))
					return
				}
				const copy = { ...original, modified: new Date() }
				objects.set(key, copy)
				send(
					res,
					200,
					`<?xml version="1.0" encoding="UTF-8"?>\n<CopyObjectResult><ETag>${copy.etag}</ETag><LastModified>${copy.modified.toISOString()}</LastModified></CopyObjectResult>`,
				)
				return
			}
			const etag = etagOf(body)
			objects.set(key, {
				body,
				modified: new Date(),
				etag,
				contentType: String(req.headers['content-type'] ?? 'application/octet-stream'),
			})
			send(res, 200, '', { etag })
			return
		}
		if (method === 'DELETE') {
			objects.delete(key)
			send(res, 204)
			return
		}
		if (method === 'GET' || method === 'HEAD') {
			const object = objects.get(key)
			if (!object) {
				send(
					res,
					404,
					method === 'HEAD' ? '' : errorXml('NoSuchKey', 'The specified key does not exist.'),
				)
				return
			}
			const size = object.body.length
			let start = 0
			let end = size - 1
			const range = /^bytes=(\d*)-(\d*)$/.exec(String(req.headers.range ?? ''))
			if (range) {
				start = range[1] ? Number(range[1]) : Math.max(0, size - Number(range[2]))
				end = range[1] && range[2] ? Math.min(Number(range[2]), size - 1) : size - 1
				if (start >= size) {
					send(res, 416, errorXml('InvalidRange', 'The requested range is not satisfiable'), {
						'content-range': `bytes */${size}`,
					})
					return
				}
			}
			const headers = {
				'content-type': object.contentType,
				'content-length': String(end - start + 1),
				etag: object.etag,
				'last-modified': object.modified.toUTCString(),
				'accept-ranges': 'bytes',
				...(range ? { 'content-range': `bytes ${start}-${end}/${size}` } : {}),
			}
			res.writeHead(range ? 206 : 200, headers)
			if (method === 'HEAD') {
				res.end()
				return
			}
			stream(res, object.body.subarray(start, end + 1))
			return
		}
		send(res, 405, errorXml('MethodNotAllowed', 'Not supported by the fake'))
	}

	/** Sends `body` in 64 KiB pieces, honouring backpressure and the read throttle. */
	function stream(res: http.ServerResponse, body: Buffer) {
		const piece = 64 * 1024
		let at = 0
		const next = () => {
			while (at < body.length && !res.destroyed) {
				const chunk = body.subarray(at, at + piece)
				at += chunk.length
				const more = res.write(chunk)
				if (at >= body.length) break
				if (readRate > 0) {
					setTimeout(next, (chunk.length / readRate) * 1000)
					return
				}
				if (!more) {
					res.once('drain', next)
					return
				}
			}
			res.end()
		}
		next()
	}

	function list(res: http.ServerResponse, q: URLSearchParams) {
		const prefix = q.get('prefix') ?? ''
		const maxKeys = Math.min(Number(q.get('max-keys') ?? 1000), 1000)
		const after = q.get('continuation-token') ?? q.get('start-after') ?? ''
		const keys = [...objects.keys()].filter((k) => k.startsWith(prefix) && k > after).sort()
		const page = keys.slice(0, maxKeys)
		const truncated = keys.length > page.length
		const contents = page
			.map((k) => {
				const o = objects.get(k)!
				return `<Contents><Key>${xmlEscape(k)}</Key><LastModified>${o.modified.toISOString()}</LastModified><ETag>${xmlEscape(o.etag)}</ETag><Size>${o.body.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`
			})
			.join('')
		send(
			res,
			200,
			`<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${bucket}</Name><Prefix>${xmlEscape(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${maxKeys}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${contents}${truncated ? `<NextContinuationToken>${xmlEscape(page.at(-1)!)}</NextContinuationToken>` : ''}</ListBucketResult>`,
		)
	}

	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
	return {
		url,
		region,
		bucket,
		accessKeyId,
		secretAccessKey,
		env: {
			S3_ENDPOINT: url,
			S3_BUCKET: bucket,
			S3_REGION: region,
			S3_ACCESS_KEY_ID: accessKeyId,
			S3_SECRET_ACCESS_KEY: secretAccessKey,
			S3_FORCE_PATH_STYLE: 'true',
		},
		calls,
		objects,
		uploads,
		failNext: ({ status, code, count = 1, method }) =>
			failures.push({ status, code, count, method }),
		throttleReads: (bytesPerSecond) => {
			readRate = bytesPerSecond
		},
		age: (key, ms) => {
			const object = objects.get(key)
			if (object) object.modified = new Date(object.modified.getTime() - ms)
		},
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections()
				server.close(() => resolve())
			}),
	}
}
