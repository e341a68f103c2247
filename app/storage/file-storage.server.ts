import { getConfig, type FileStorageConfig } from '../config.server.ts'
import { singleton } from '../utils/singleton.server.ts'
import type { FileStorage } from './contract.server.ts'
import { LocalFileStorage } from './local-storage.server.ts'

export { FileNotFound, StorageUnavailable, type FileStorage } from './contract.server.ts'

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
