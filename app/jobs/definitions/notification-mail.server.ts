import { sendNotificationMail } from '../../services/notifications/mail.server.ts'
import { defineJob } from '../define.server.ts'
import { jobPayloads } from '../payloads.ts'

/** Mails one notification of a job's end, from its row (the outbox, decision 0082). */
export const notificationMailJob = defineJob({
	name: 'notification-mail',
	schema: jobPayloads['notification-mail'],
	// a mail server away for a while: tried for about ten minutes
	retryLimit: 10,
	retryDelaySeconds: 60,
	expireInSeconds: 120,
	handler: ({ notificationId }) => sendNotificationMail(notificationId),
})
