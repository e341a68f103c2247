import { getConfig } from '../../config.server.ts'
import { API_BASE } from './handler.server.ts'
import { buildOpenApi } from './openapi.ts'
import { API_OPERATIONS } from './operations.server.ts'

// The served document: the operations, and the webhook events once their half adds them here
// (`webhooks: webhookEventSchemas`).
let document: string | undefined

export function openApiDocument() {
	return buildOpenApi({
		operations: API_OPERATIONS,
		serverUrl: `${getConfig().APP_URL}${API_BASE}`,
	})
}

export function openApiJson() {
	return (document ??= JSON.stringify(openApiDocument()))
}
