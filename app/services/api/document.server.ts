import { getConfig } from '../../config.server.ts'
import { API_BASE } from './handler.server.ts'
import { buildOpenApi } from './openapi.ts'
import { API_OPERATIONS } from './operations.server.ts'
import { webhookEventSchemas } from '../webhooks/events.ts'

// The served document: the operations and the webhook events' payloads.
let document: string | undefined

export function openApiDocument() {
	return buildOpenApi({
		operations: API_OPERATIONS,
		webhooks: webhookEventSchemas,
		serverUrl: `${getConfig().APP_URL}${API_BASE}`,
	})
}

export function openApiJson() {
	return (document ??= JSON.stringify(openApiDocument()))
}
