import type { Route } from './+types/verify-list'
import { VerifyPage } from '../components/verification/verify-page.tsx'
import { requestContext } from '../context.server.ts'
import { loadVerifyPage, verifyPageAction } from '../services/verification/verify-page.server.ts'
import { pageTitle } from '../utils/meta.ts'

// The verify page of a lead list: the page is app/components/verification/verify-page.tsx,
// its loader and action app/services/verification/verify-page.server.ts (decision 0086).

export async function loader({ request, params, context }: Route.LoaderArgs) {
	return loadVerifyPage(context.get(requestContext).account, params.listId, request)
}

export async function action({ request, params, context }: Route.ActionArgs) {
	return verifyPageAction(context.get(requestContext).account, params.listId, request)
}

export default function VerifyList({ loaderData, actionData }: Route.ComponentProps) {
	return <VerifyPage loaderData={loaderData} actionData={actionData} />
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Verify emails')
