import { data } from 'react-router'
import type { Route } from './+types/dev-error'
import { getConfig } from '../../config.server.ts'

// Only under NODE_ENV=test: an unhandled loader error, so the browser tests can
// check that it answers 500 with the 404 screen (SPEC.md section 8).
export function loader({ request }: Route.LoaderArgs) {
	if (getConfig().NODE_ENV !== 'test') {
		throw data(`Page not found: ${new URL(request.url).pathname}`, { status: 404 })
	}
	throw new Error('Forced failure for the error-screen test')
}

export default function DevError() {
	return null
}
