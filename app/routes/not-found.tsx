import { data } from 'react-router'
import type { Route } from './+types/not-found'

// SPEC.md section 8: unmatched routes answer 404 'Page not found: {path}'.
export function loader({ request }: Route.LoaderArgs) {
	throw data(`Page not found: ${new URL(request.url).pathname}`, { status: 404 })
}

export function action({ request }: Route.ActionArgs) {
	throw data(`Page not found: ${new URL(request.url).pathname}`, { status: 404 })
}

export default function NotFound() {
	return null
}
