import type { RequestHandler } from 'express'

/**
 * A URL with a malformed percent-escape (`/%ff`) or a NUL (`?to=%00`) is the client's mistake:
 * 400 here, before the router's decoding throws or PostgreSQL refuses the byte (a 500 with a
 * stack, before). Most URLs have no escape at all and pass on the first check.
 */
export function wellFormedUrl(): RequestHandler {
	return (req, res, next) => {
		const url = req.originalUrl
		if (!url.includes('%') && !url.includes('\0')) return next()
		const query = url.indexOf('?')
		const parts = [query === -1 ? url : url.slice(0, query)]
		if (query !== -1) parts.push(...url.slice(query + 1).split(/[&=]/))
		for (const part of parts) {
			let decoded: string
			try {
				decoded = decodeURIComponent(part.replaceAll('+', ' '))
			} catch {
				return badRequest(res)
			}
			if (decoded.includes('\0')) return badRequest(res)
		}
		next()
	}
}

function badRequest(res: Parameters<RequestHandler>[1]) {
	res.status(400).type('text/plain').send('Bad Request: the address is not well formed.')
}
