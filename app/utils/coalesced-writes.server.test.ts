import { describe, expect, test } from 'vitest'
import { CoalescedWrites } from './coalesced-writes.server.ts'

function collect(stream: CoalescedWrites) {
	const chunks: string[] = []
	stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString()))
	return chunks
}

describe('CoalescedWrites', () => {
	test('what is written in one go comes out as one chunk', async () => {
		const stream = new CoalescedWrites()
		const chunks = collect(stream)
		stream.write('<html>')
		stream.write('<body>')
		stream.write('page')
		await new Promise((resolve) => setImmediate(resolve))
		expect(chunks).toEqual(['<html><body>page'])
	})

	test('a later write (streamed content) goes out on its own, and nothing is held back at the end', async () => {
		const stream = new CoalescedWrites()
		const chunks = collect(stream)
		stream.write('shell')
		await new Promise((resolve) => setImmediate(resolve))
		expect(chunks).toEqual(['shell'])
		stream.write('deferred ')
		stream.end('data')
		await new Promise((resolve) => stream.on('end', resolve))
		expect(chunks).toEqual(['shell', 'deferred data'])
	})
})
