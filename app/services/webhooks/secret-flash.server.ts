import { createCookie } from 'react-router'
import { getConfig } from '../../config.server.ts'
import { openSecret, sealSecret } from '../../utils/secrets.server.ts'

// A signing secret is shown once, after the redirect that follows its creation or rotation (a
// refresh shows it no more): it rides in a cookie sealed with APP_SECRET for this user, ten
// minutes at most, and the page that shows it clears it, as the recovery codes do.
const flashCookie = () =>
	createCookie('ls_webhook_secret', {
		path: '/',
		httpOnly: true,
		sameSite: 'lax',
		secure: getConfig().APP_URL.startsWith('https:'),
		maxAge: 600,
	})

/** The Set-Cookie header that carries a new secret of `endpointId` to the next page. */
export function flashSigningSecret(userId: string, endpointId: string, secret: string) {
	return flashCookie().serialize(
		sealSecret(`${endpointId} ${secret}`, 'webhook-secret-flash', userId),
	)
}

/** The secret just made, if this request carries it, and the header that clears it. */
export async function takeSigningSecret(request: Request, userId: string) {
	const cookie = flashCookie()
	const sealed: unknown = await cookie.parse(request.headers.get('Cookie'))
	if (typeof sealed !== 'string' || !sealed) return null
	const clear = await cookie.serialize('', { maxAge: 0 })
	try {
		const [endpointId, secret] = openSecret(sealed, 'webhook-secret-flash', userId).split(' ')
		return { endpointId: endpointId!, secret: secret!, clear }
	} catch {
		return { endpointId: null, secret: null, clear }
	}
}
