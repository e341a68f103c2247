import { createCookieSessionStorage } from 'react-router'
import { createToastUtilsWithCustomSession } from 'remix-toast'
import { getConfig } from '../config.server.ts'
import { singleton } from './singleton.server.ts'

// Flash toasts live in their own signed cookie, read once by the root loader.
const toast = singleton('toast-utils', () => {
	const config = getConfig()
	return createToastUtilsWithCustomSession(
		createCookieSessionStorage({
			cookie: {
				name: 'ls_toast',
				path: '/',
				httpOnly: true,
				sameSite: 'lax',
				secure: config.APP_URL.startsWith('https:'),
				secrets: [config.APP_SECRET],
			},
		}),
	)
})

/**
 * The flash toast of this request, if any, and the header that clears it. Without the toast
 * cookie there is nothing to read or clear: no cookie to verify and sign again, no Set-Cookie.
 */
export async function getToast(request: Request) {
	if (!/(?:^|;\s*)ls_toast=/.test(request.headers.get('Cookie') ?? '')) {
		return { toast: undefined, headers: new Headers() }
	}
	return toast.getToast(request)
}

export const {
	redirectWithSuccess,
	redirectWithError,
	redirectWithInfo,
	dataWithSuccess,
	dataWithError,
} = toast
