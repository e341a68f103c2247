// s3rver (an S3 server from the npm registry), so what only our own fake (tests/fakes/s3)
// accepts is caught: the storage and scale-out tests run against both (issue 32 point 9).
// s3rver keeps objects in a temporary directory and checks SigV4 signatures for its fixed
// key pair. In front of it a small proxy records each request ("METHOD /bucket/key?query",
// " bytes=N-" after a ranged GET, as the fake records them) and can slow GetObject bodies
// down, the two things the scale-out test asks of its store.
import { mkdtemp, rm } from 'node:fs/promises'
import http from 'node:http'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3'

type S3rverServer = {
	run(): Promise<AddressInfo>
	close(): Promise<void>
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverServer

export type S3rverStore = {
	url: string
	region: string
	bucket: string
	accessKeyId: string
	secretAccessKey: string
	/** the environment that points the app at it */
	env: Record<string, string>
	/** every request through the proxy, in order */
	calls: string[]
	/** the keys stored now */
	keys(): Promise<string[]>
	/** GetObject bodies are sent at most this many bytes a second (0: no limit) */
	throttleReads(bytesPerSecond: number): void
	close(): Promise<void>
}

export async function startS3rver(options: { bucket?: string } = {}): Promise<S3rverStore> {
	const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass
	const bucket = options.bucket ?? 'leadsmith-test'
	const region = 'us-east-1'
	// s3rver's only key pair
	const accessKeyId = 'S3RVER'
	const secretAccessKey = 'S3RVER'
	const directory = await mkdtemp(path.join(tmpdir(), 'leadsmith-s3rver-'))
	const s3rver = new S3rver({
		address: '127.0.0.1',
		port: 0,
		silent: true,
		directory,
		vhostBuckets: false,
		configureBuckets: [{ name: bucket }],
	})
	const { port: upstream } = await s3rver.run()

	const calls: string[] = []
	let readRate = 0
	const proxy = http.createServer((req, res) => {
		const range = req.headers.range ? ` ${req.headers.range}` : ''
		calls.push(`${req.method} ${req.url}${range}`)
		// the Host header is kept: it is part of what the client signed
		const forward = http.request(
			{
				host: '127.0.0.1',
				port: upstream,
				method: req.method,
				path: req.url,
				headers: req.headers,
			},
			(answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers)
				if (req.method !== 'GET' || readRate === 0) return void answer.pipe(res)
				answer.on('data', (chunk: Buffer) => {
					res.write(chunk)
					answer.pause()
					setTimeout(() => answer.resume(), (chunk.length / (readRate || Infinity)) * 1000)
				})
				answer.on('end', () => res.end())
			},
		)
		forward.on('error', () => res.destroy())
		req.pipe(forward)
	})
	await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
	const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
	const client = new S3Client({
		region,
		endpoint: `http://127.0.0.1:${upstream}`,
		forcePathStyle: true,
		credentials: { accessKeyId, secretAccessKey },
	})

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
		async keys() {
			const keys: string[] = []
			let token: string | undefined
			do {
				const page = await client.send(
					new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }),
				)
				for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key)
				token = page.IsTruncated ? page.NextContinuationToken : undefined
			} while (token)
			return keys
		},
		throttleReads(bytesPerSecond) {
			readRate = bytesPerSecond
		},
		async close() {
			client.destroy()
			proxy.closeAllConnections()
			await new Promise<void>((resolve) => proxy.close(() => resolve()))
			await s3rver.close()
			await rm(directory, { recursive: true, force: true })
		},
	}
}
