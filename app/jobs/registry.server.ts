import type { JobDefinition } from './define.server.ts'
import { companyScrapeJob } from './definitions/company-scrape.server.ts'
import { dnsCheckJob } from './definitions/dns-check.server.ts'
import { csvImportJob } from './definitions/csv-import.server.ts'
import { inboxOrderJob } from './definitions/inbox-order.server.ts'
import { enrichJob } from './definitions/enrich.server.ts'
import { emailBisonUploadJob } from './definitions/emailbison-upload.server.ts'
import { leadScrapeJob } from './definitions/lead-scrape.server.ts'
import { subscriptionExpiryJob } from './definitions/subscription-expiry.server.ts'
import { checkServerJob } from './definitions/check-server.server.ts'
import { pruneFormSubmissionsJob } from './definitions/prune-form-submissions.server.ts'
import { leadPageMarksJob } from './definitions/lead-page-marks.server.ts'
import { settleEndedJobsJob } from './definitions/settle-ended-jobs.server.ts'
import { notificationMailJob } from './definitions/notification-mail.server.ts'
import { bulkActionJob } from './definitions/bulk-action.server.ts'
import { leadRemapJob } from './definitions/lead-remap.server.ts'
import { verifyJob } from './definitions/verify.server.ts'
import { domainHealthDailyJob, domainHealthJob } from './definitions/domain-health.server.ts'
import {
	webhookDeliveryJob,
	webhookDisabledMailJob,
} from './definitions/webhook-delivery.server.ts'
import { dncSyncDailyJob, dncSyncJob } from './definitions/dnc-sync.server.ts'

/** Every job kind; one pg-boss queue each (DESIGN.md section 7). */
export const jobDefinitions: JobDefinition<any>[] = [
	subscriptionExpiryJob,
	leadScrapeJob,
	companyScrapeJob,
	csvImportJob,
	emailBisonUploadJob,
	dnsCheckJob,
	inboxOrderJob,
	enrichJob,
	checkServerJob,
	pruneFormSubmissionsJob,
	leadPageMarksJob,
	notificationMailJob,
	bulkActionJob,
	leadRemapJob,
	verifyJob,
	domainHealthJob,
	domainHealthDailyJob,
	webhookDeliveryJob,
	webhookDisabledMailJob,
	dncSyncJob,
	dncSyncDailyJob,
	// handed the list rather than importing this module: no circle (decision 0070)
	settleEndedJobsJob(() => jobDefinitions),
]
