import { readFile } from 'node:fs/promises'
import path from 'node:path'
import type { ServerBuild } from 'react-router'
import { describe, expect, test } from 'vitest'
import routeTable from '../routes.ts'
import { routeHandles, routePathOf } from './route-handles.server.ts'

// The app's route table as a build whose modules are the real ones where a module declares a
// `handle`: the server's layers find each declaration through the path, and nothing else.

type Entry = { id?: string; path?: string; index?: boolean; file?: string; children?: Entry[] }

async function buildOf(entries: readonly Entry[]): Promise<ServerBuild> {
	const routes: Record<string, object> = { root: { id: 'root', path: '', module: {} } }
	const add = async (entry: Entry, parentId: string) => {
		const file = path.resolve('app', entry.file!)
		const source = await readFile(file, 'utf8')
		const declares = source.includes('export const handle') || source.includes('withContextRead(')
		const module = declares ? ((await import(file)) as object) : {}
		routes[entry.id!] = { id: entry.id, parentId, path: entry.path, index: entry.index, module }
		for (const child of entry.children ?? []) await add(child, entry.id!)
	}
	for (const entry of entries) await add(entry, 'root')
	return { routes } as unknown as ServerBuild
}

describe('what routes declare of themselves', () => {
	test('the upload limit and the page queue are found through the path, with .data or not', async () => {
		const handleFor = routeHandles(await buildOf(routeTable as readonly Entry[]))
		expect(handleFor('/file-list').bodyLimit).toBe('upload')
		expect(handleFor('/file-list.data').bodyLimit).toBe('upload')
		for (const health of ['/healthz', '/readyz', '/build-version'])
			expect(handleFor(health).pageQueue, health).toBe('skip')
		// the probes answer for the process: no session read
		for (const probe of ['/healthz', '/readyz'])
			expect(handleFor(probe).session, probe).toBe('none')
		expect(handleFor('/build-version').session).toBeUndefined()
		// an ordinary page declares nothing: the ordinary limit, the queue
		for (const page of ['/lists', '/signin', '/file-lists', '/healthz/x'])
			expect(handleFor(page), page).toEqual({})
	})

	test("the dashboard's read with the request context is its loader's, found through the path", async () => {
		const handleFor = routeHandles(await buildOf(routeTable as readonly Entry[]))
		// the document and its data request; the route id is what `_routes` names
		for (const path of ['/', '/_.data']) {
			const { contextRead, ...rest } = handleFor(path)
			expect(contextRead?.routeId, path).toBe('index')
			expect(contextRead?.read.name, path).toBe('dashboard')
			expect(rest, path).toEqual({})
		}
		for (const page of ['/lists', '/settings', '/healthz'])
			expect(handleFor(page).contextRead, page).toBeUndefined()
	})

	test('single fetch paths read as the route they load', () => {
		expect(routePathOf('/_.data')).toBe('/')
		expect(routePathOf('/lists/1/_.data')).toBe('/lists/1')
		expect(routePathOf('/signin.data')).toBe('/signin')
	})
})
