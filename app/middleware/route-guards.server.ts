import { data, redirect, type MiddlewareFunction } from 'react-router'
import { getConfig } from '../config.server.ts'
import {
	hasActivePlan,
	hasAnyScope,
	requestContext,
	type AccountContext,
	type Scope,
} from '../context.server.ts'
import { safeRedirect } from '../utils/safe-redirect.ts'
import { screenByPattern, type MiddlewareName } from '../routes.ts'

/** The query /settings reads to say that the admin area needs two-factor authentication. */
export const TWO_FACTOR_REQUIRED = 'twoFactor=required'

type Guard = (args: { request: Request; account: AccountContext | null }) => void

export const DOMAIN_SCOPES: Scope[] = ['all', 'domain-management:read', 'domain-management:write']

/** Where a signed-out visitor goes, keeping where they were headed. */
export function signInUrl(request: Request) {
	const url = new URL(request.url)
	// a data request's path: React Router asks /_.data for / (and /x/_.data for /x/)
	const data = url.pathname.endsWith('.data')
	const path = url.pathname.replace(/\/_\.data$/, '/').replace(/\.data$/, '')
	if (data) url.searchParams.delete('_routes')
	const target = safeRedirect(path + url.search)
	return target === '/' ? '/signin' : `/signin?redirectTo=${encodeURIComponent(target)}`
}

/**
 * ADMIN_REQUIRE_MFA: staff without a code-verified session set up or use two-factor first. For
 * the admin area and for everything as powerful (the local mailbox holds every reset link);
 * `returnTo` is where the code step sends them back.
 */
export function requireStaffSecondFactor(account: AccountContext, returnTo?: string) {
	if (!getConfig().ADMIN_REQUIRE_MFA || account.sessionAal === 'aal2') return
	if (!account.twoFactorEnabled) throw redirect(`/settings?${TWO_FACTOR_REQUIRED}`)
	throw redirect(
		returnTo ? `/signin/verify?redirectTo=${encodeURIComponent(returnTo)}` : '/signin/verify',
	)
}

/** The middleware SPEC.md's route table names, by name. */
export const guards: Record<MiddlewareName, Guard> = {
	auth({ request, account }) {
		if (!account) throw redirect(signInUrl(request))
		if (account.isTeamMember && !account.isActiveTeamMember) {
			throw data('Your access to this team has ended. Ask the account owner to invite you again.', {
				status: 403,
			})
		}
	},
	subscription({ account }) {
		if (!account || !hasActivePlan(account)) throw redirect('/subscription')
	},
	scope({ account }) {
		if (!account || !hasAnyScope(account, DOMAIN_SCOPES)) {
			throw data('You do not have access to domain management.', { status: 403 })
		}
	},
	admin({ account }) {
		if (!account?.platformRole) throw redirect('/admin-login')
		requireStaffSecondFactor(account)
	},
}

/** Runs the matched screen's named middleware in order (SPEC.md section 4). */
export const routeGuardMiddleware: MiddlewareFunction<Response> = async (
	{ request, context, pattern },
	next,
) => {
	const screen = screenByPattern(pattern)
	if (screen) {
		const { account } = context.get(requestContext)
		for (const name of screen.middleware) guards[name]({ request, account })
	}
	return next()
}
