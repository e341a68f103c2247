/**
 * Lines sent as they are read: the next page of rows is read only when the last was taken
 * (the reader's pace, never the whole file in memory); a download stopped midway closes the
 * source.
 */
export function linesStream(lines: AsyncIterable<string>): ReadableStream<Uint8Array> {
	const source = lines[Symbol.asyncIterator]()
	const encoder = new TextEncoder()
	return new ReadableStream<Uint8Array>({
		async pull(controller) {
			const next = await source.next()
			if (next.done) controller.close()
			else controller.enqueue(encoder.encode(next.value))
		},
		async cancel() {
			await source.return?.()
		},
	})
}

/** A CSV download's headers (private: every download is of one account's data). */
export function csvDownloadHeaders(filename: string) {
	return {
		'Content-Type': 'text/csv; charset=utf-8',
		'Content-Disposition': `attachment; filename="${filename}"`,
		'Cache-Control': 'private, no-store',
		'X-Content-Type-Options': 'nosniff',
	}
}
