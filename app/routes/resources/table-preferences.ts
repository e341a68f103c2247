import { redirect } from 'react-router'
import type { Route } from './+types/table-preferences'
import { requestContext } from '../../context.server.ts'
import { signInUrl } from '../../middleware/route-guards.server.ts'
import { saveTablePreferences } from '../../services/tables/preferences.server.ts'
import { TablePreferencesSchema } from '../../services/tables/schemas.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { readFormData } from '../../utils/form-data.server.ts'
import { safeRedirect } from '../../utils/safe-redirect.ts'
import { redirectWithSuccess } from '../../utils/toast.server.ts'

// Every data table's column chooser posts here (components/ui/data-table.tsx), with or without
// JavaScript, and comes back to the page it was on.
export async function loader() {
	throw redirect('/')
}

export async function action({ request, context }: Route.ActionArgs) {
	const { account } = context.get(requestContext)
	if (!account) throw redirect(signInUrl(new Request(new URL('/', request.url))))
	const submission = parseWithZod(await readFormData(request), { schema: TablePreferencesSchema })
	const back = safeRedirect(
		submission.status === 'success' ? submission.value.redirectTo : undefined,
	)
	if (submission.status !== 'success') throw redirect(back)
	await saveTablePreferences(account, submission.value)
	return redirectWithSuccess(back, 'Table settings saved')
}
