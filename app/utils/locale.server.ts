/** The first locale of the request's Accept-Language that this server can format, else en-US. */
export function requestLocale(request: Request) {
	const header = request.headers.get('accept-language') ?? ''
	for (const part of header.split(',')) {
		const tag = part.split(';')[0]?.trim()
		if (!tag || tag === '*') continue
		try {
			if (Intl.DateTimeFormat.supportedLocalesOf([tag]).length) return tag
		} catch {
			// a malformed tag: try the next
		}
	}
	return 'en-US'
}
