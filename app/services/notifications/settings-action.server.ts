import { data } from 'react-router'
import { isOwner, type AccountContext } from '../../context.server.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { redirectWithSuccess } from '../../utils/toast.server.ts'
import { NOTIFICATION_KINDS } from './kinds.ts'
import { saveNotificationMail } from './notifications.server.ts'
import { NotificationMailSchema } from './schemas.ts'

/** Settings' notification mails form: the owner's choice of the kinds mailed. */
export async function notificationMailAction(account: AccountContext, formData: FormData) {
	const intent = 'notification-mail' as const
	if (!isOwner(account))
		throw data('Mails of finished jobs go to the account owner, who chooses them.', {
			status: 403,
		})
	const submission = parseWithZod(formData, { schema: NotificationMailSchema })
	if (submission.status !== 'success')
		return data({ intent, result: submission.reply() }, { status: 400 })
	const { intent: _, ...mailed } = submission.value
	await saveNotificationMail(account.user.id, mailed)
	const count = NOTIFICATION_KINDS.filter((k) => mailed[k]).length
	return redirectWithSuccess(
		'/settings',
		count === 0 ? 'Notification mails turned off' : 'Notification mails saved',
	)
}
