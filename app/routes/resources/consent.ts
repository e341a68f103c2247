import { data, redirect } from 'react-router'
import type { Route } from './+types/consent'
import { safeRedirect } from '../../utils/safe-redirect.ts'
import { consentCookie } from '../../services/analytics/analytics.server.ts'
import { readFormData } from '../../utils/form-data.server.ts'

/** POST /consent: the analytics consent banner (a plain form without JavaScript). */
export async function action({ request }: Route.ActionArgs) {
	const form = await readFormData(request)
	const choice = form.get('consent')
	if (choice !== 'granted' && choice !== 'denied') return data({ ok: false }, { status: 400 })
	const headers = { 'Set-Cookie': consentCookie(choice) }
	if (form.get('js') === '1') return data({ ok: true }, { headers })
	return redirect(safeRedirect(form.get('redirectTo')), { headers })
}

export function loader() {
	return redirect('/')
}
