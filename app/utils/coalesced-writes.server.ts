import { Transform, type TransformCallback } from 'node:stream'

/**
 * What React writes in one go (a page is a handful of 4 kB pieces and scripts) passes on as
 * one chunk: one read of the response stream and one socket write per React flush, instead
 * of one each per piece. Content React streams later still goes out as soon as it is written.
 */
export class CoalescedWrites extends Transform {
	#pending: Buffer[] = []
	#scheduled = false

	override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
		this.#pending.push(chunk)
		if (!this.#scheduled) {
			this.#scheduled = true
			// React writes a flush synchronously: pass it on once it has written all of it.
			process.nextTick(() => this.#pushPending())
		}
		done()
	}

	override _flush(done: TransformCallback) {
		this.#pushPending()
		done()
	}

	#pushPending() {
		this.#scheduled = false
		if (this.#pending.length === 0) return
		const pending = this.#pending
		this.#pending = []
		this.push(pending.length === 1 ? pending[0] : Buffer.concat(pending))
	}
}
