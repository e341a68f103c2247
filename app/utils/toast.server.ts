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

export const {
	getToast,
	redirectWithSuccess,
	redirectWithError,
	redirectWithInfo,
	dataWithSuccess,
	dataWithError,
} = toast
