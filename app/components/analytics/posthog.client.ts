/**
 * posthog-js, loaded with a dynamic import only when POSTHOG_KEY is set and the
 * visitor has granted consent (docs/decisions/0009-client-rules-and-analytics.md).
 */
import type { PostHog } from 'posthog-js'
import { isValidDistinctId, type AnalyticsUser } from '../../services/analytics/identity.ts'

let instance: Promise<PostHog> | null = null
// Page views and identify may be asked for before startPostHog runs (effects race the import):
// they wait for it.
let markReady: (posthog: PostHog) => void = () => {}
const ready = new Promise<PostHog>((resolve) => (markReady = resolve))
const current = () => instance ?? ready

export function startPostHog(config: { key: string; host: string }) {
	instance ??= import('posthog-js').then(({ default: posthog }) => {
		posthog.init(config.key, {
			api_host: config.host,
			// SPEC.md section 9
			person_profiles: 'identified_only',
			capture_pageleave: true,
			autocapture: true,
			capture_pageview: false,
			persistence: 'localStorage',
			disable_session_recording: false,
			// nothing leaves before consent: start opted out, opt in below
			opt_out_capturing_by_default: true,
		})
		posthog.opt_in_capturing({ captureEventName: false })
		markReady(posthog)
		return posthog
	})
	return instance
}

export function stopPostHog() {
	void instance?.then((posthog) => posthog.opt_out_capturing())
	instance = null
}

export async function capturePageview(url: string, page: string) {
	const posthog = await current()
	posthog.capture('$pageview', { $current_url: url, page })
}

export async function identify(user: AnalyticsUser) {
	const posthog = await current()
	if (!isValidDistinctId(user.id)) {
		console.error('analytics: refusing to identify with an invalid id')
		return
	}
	const { id, ...properties } = user
	posthog.identify(id, properties)
}

/** Sign-out: a fresh anonymous identity; consent (given already) stays. */
export async function reset() {
	const posthog = await current()
	posthog.reset()
	posthog.opt_in_capturing({ captureEventName: false })
}

export async function identifiedId() {
	const posthog = await current()
	return posthog.get_property('$user_state') === 'identified' ? posthog.get_distinct_id() : null
}
