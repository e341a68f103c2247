import { redirect } from 'react-router'
import type { Route } from './+types/signout'
import { requestContext } from '../../context.server.ts'
import { redirectWithSuccess } from '../../utils/toast.server.ts'

export async function loader() {
	throw redirect('/')
}

export async function action({ context }: Route.ActionArgs) {
	const { supabase, account, secondFactorPending } = context.get(requestContext)
	if (account || secondFactorPending) await supabase.auth.signOut({ scope: 'local' })
	return redirectWithSuccess('/signin', 'Signed out')
}
