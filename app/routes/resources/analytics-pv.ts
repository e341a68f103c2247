import type { Route } from './+types/analytics-pv'
import { getConfig } from '../../config.server.ts'
import { requestContext } from '../../context.server.ts'
import {
	analyticsEnabled,
	captureServerPageview,
	readConsent,
	serverDistinctId,
} from '../../services/analytics/analytics.server.ts'
import { logger } from '../../utils/logger.server.ts'

// a transparent 1x1 GIF
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64')

/**
 * GET /analytics/pv?u=<path>&p=<page>: the server-side page view of a client that runs
 * no script (the <noscript> image in root.tsx), sent with posthog-node after consent.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
	const headers = new Headers({ 'Content-Type': 'image/gif', 'Cache-Control': 'no-store' })
	if (analyticsEnabled() && readConsent(request) === 'granted') {
		const url = new URL(request.url)
		const path = url.searchParams.get('u') ?? '/'
		const page = url.searchParams.get('p') || path
		const account = context.get(requestContext).account
		const distinct = serverDistinctId(request, account?.user.id ?? null)
		if (distinct.setCookie) headers.append('Set-Cookie', distinct.setCookie)
		const target = path.startsWith('/') && !path.startsWith('//') ? path : '/'
		try {
			await captureServerPageview({
				distinctId: distinct.id,
				url: `${getConfig().APP_URL}${target}`,
				page,
				userAgent: request.headers.get('user-agent'),
			})
		} catch (error) {
			logger.warn({ err: error }, 'server page view failed')
		}
	}
	return new Response(PIXEL, { headers })
}
