import { isIP } from 'node:net'
import { getConfig, type Config } from '../../config.server.ts'

/** A host name as the Host lookup compares it: lower case, no trailing dot, no leading `www.`. */
function bare(host: string) {
	return host
		.trim()
		.toLowerCase()
		.replace(/\.$/, '')
		.replace(/^www\./, '')
}

/**
 * The app's own host names (bare): APP_URL's, the auth host (SUPABASE_URL's) and
 * FORWARDING_TARGET when it is a name. A domain on one of them, with or without `www.`, or
 * under one of them, is never imported, forwarded, or answered by a redirect: forwarding it
 * would take the sign-in page (and every session cookie sent to it) away from the app.
 */
export function appHostNames(
	config: Pick<Config, 'APP_URL' | 'SUPABASE_URL' | 'FORWARDING_TARGET'> = getConfig(),
) {
	const hosts = [new URL(config.APP_URL).hostname]
	if (config.SUPABASE_URL) hosts.push(new URL(config.SUPABASE_URL).hostname)
	if (config.FORWARDING_TARGET && !isIP(config.FORWARDING_TARGET))
		hosts.push(config.FORWARDING_TARGET)
	return [...new Set(hosts.map(bare).filter((h) => h && !isIP(h.replace(/^\[|\]$/g, ''))))]
}

/** Whether `name` (a domain or a request's Host name) is, or is under, one of the app's hosts. */
export function isAppHost(name: string, hosts: string[] = appHostNames()) {
	const host = bare(name)
	return hosts.some((own) => host === own || host.endsWith(`.${own}`))
}
