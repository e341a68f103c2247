import type { Transaction } from 'kysely'
import type { DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { redirectWithSuccess } from '../../utils/toast.server.ts'
import { oncePerSubmission } from '../idempotency/form-submissions.server.ts'
import { actingAccount } from '../workspaces/access.server.ts'

/**
 * The end of the create-leads and create-companies forms: the list is started once per
 * submission (sent twice, by a double click or back and again: one list, one hold, one job),
 * and the user goes to it on the scrape page with `message` as a toast.
 */
export async function startListOnce(
	context: AccountContext | null,
	formData: FormData,
	form: 'create-leads' | 'create-companies',
	start: (trx: Transaction<DB>) => Promise<{ listId: string }>,
	message: string,
) {
	const done = await oncePerSubmission(
		{ accountId: actingAccount(context).accountId, form, formData },
		async (trx) => {
			const { listId } = await start(trx)
			return { to: `/scrape#list-${listId}`, message }
		},
	)
	return redirectWithSuccess(done.to, done.message)
}
