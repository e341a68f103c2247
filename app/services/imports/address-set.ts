/**
 * The addresses an import has written, as 64-bit hashes in two typed arrays (16 MB for
 * 1,000,000 addresses, where a Set of strings would take ten times that). `add` answers
 * true only for an address it has certainly not seen; false means "seen, or a hash that
 * collides", which the caller settles in SQL, so a collision never loses a row.
 */
export class AddressSet {
	#high: Uint32Array
	#low: Uint32Array
	#mask: number
	#size = 0

	constructor(expected: number) {
		let slots = 1024
		while (slots < expected * 2) slots *= 2
		this.#high = new Uint32Array(slots)
		this.#low = new Uint32Array(slots)
		this.#mask = slots - 1
	}

	get size() {
		return this.#size
	}

	/** Adds the (already lower-cased) address; true when it was certainly not there. */
	add(address: string): boolean {
		// two FNV-1a variants over the UTF-16 units: 64 bits in all
		let high = 0x811c9dc5
		let low = 0x01000193
		for (let i = 0; i < address.length; i++) {
			const unit = address.charCodeAt(i)
			high = Math.imul(high ^ unit, 0x01000193)
			low = Math.imul(low ^ unit, 0x5bd1e995) ^ (low >>> 15)
		}
		high >>>= 0
		low = (low | 1) >>> 0 // 0 marks an empty slot
		let slot = (high ^ Math.imul(low, 0x9e3779b1)) & this.#mask
		for (;;) {
			const stored = this.#low[slot]!
			if (stored === 0) break
			if (stored === low && this.#high[slot] === high) return false
			slot = (slot + 1) & this.#mask
		}
		this.#high[slot] = high
		this.#low[slot] = low
		if (++this.#size * 2 > this.#mask) this.#grow()
		return true
	}

	#grow() {
		const high = this.#high
		const low = this.#low
		this.#high = new Uint32Array(high.length * 2)
		this.#low = new Uint32Array(low.length * 2)
		this.#mask = this.#high.length - 1
		for (let i = 0; i < high.length; i++) {
			if (low[i] === 0) continue
			let slot = (high[i]! ^ Math.imul(low[i]!, 0x9e3779b1)) & this.#mask
			while (this.#low[slot] !== 0) slot = (slot + 1) & this.#mask
			this.#high[slot] = high[i]!
			this.#low[slot] = low[i]!
		}
	}
}
