import { parseWithZod } from '../../utils/form-bounds.ts'
import { redirect } from 'react-router'
import type { Route } from './+types/switch-workspace'
import { requestContext } from '../../context.server.ts'
import { signInUrl } from '../../middleware/route-guards.server.ts'
import { chooseWorkspace } from '../../services/workspaces/current-workspace.server.ts'
import { SwitchWorkspaceSchema } from '../../services/workspaces/schemas.ts'
import { notFound } from '../../utils/http-errors.server.ts'
import { redirectWithSuccess } from '../../utils/toast.server.ts'
import { readFormData } from '../../utils/form-data.server.ts'

// The workspace switcher's form (default layout header): remembers the choice in a cookie
// and goes back where the user was. Works without JavaScript.
export async function loader() {
	throw redirect('/workspaces')
}

export async function action({ request, context }: Route.ActionArgs) {
	const { account } = context.get(requestContext)
	if (!account) throw redirect(signInUrl(new Request(new URL('/workspaces', request.url))))
	const submission = parseWithZod(await readFormData(request), { schema: SwitchWorkspaceSchema })
	if (submission.status !== 'success') notFound('This workspace')
	const { workspace, setCookie } = await chooseWorkspace(
		request,
		account,
		submission.value.workspaceId,
	)
	return redirectWithSuccess(
		submission.value.redirectTo ?? '/',
		`Now working in “${workspace.name}”`,
		{ headers: { 'Set-Cookie': setCookie } },
	)
}
