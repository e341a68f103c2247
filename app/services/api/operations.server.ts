import type { ApiOperation } from './operation.ts'
import { accountOperations } from './operations/account.server.ts'
import { doNotContactOperations } from './operations/do-not-contact.server.ts'
import { emailBisonUploadOperations } from './operations/emailbison-uploads.server.ts'
import { enrichmentRunOperations } from './operations/enrichment-runs.server.ts'
import { listOperations } from './operations/lists.server.ts'
import { scrapeOperations } from './operations/scrapes.server.ts'
import { verificationRunOperations } from './operations/verification-runs.server.ts'

/** Every operation of /api/v1: the dispatcher's table and the OpenAPI document's source. */
export const API_OPERATIONS: readonly ApiOperation[] = [
	...listOperations,
	...scrapeOperations,
	...enrichmentRunOperations,
	...verificationRunOperations,
	...doNotContactOperations,
	...emailBisonUploadOperations,
	...accountOperations,
]
