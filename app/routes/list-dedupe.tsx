import { Copy } from 'lucide-react'
import { z } from 'zod'
import { data, Form, Link } from 'react-router'
import type { Route } from './+types/list-dedupe'
import { Button, buttonClasses } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { requestContext } from '../context.server.ts'
import { inOtherListsPreview, removeInOtherLists } from '../services/lists/other-lists.server.ts'
import { readFormData } from '../utils/form-data.server.ts'
import { parseWithZod } from '../utils/form-bounds.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'

// "Remove leads that are in my other lists" (issue 36): this page is the confirm step (the
// preview count, then one button), so it works the same without JavaScript.

const RemoveSchema = z.object({ intent: z.literal('remove', { error: 'Unknown action' }) })

const leadsWord = (n: number) => `${n.toLocaleString('en')} lead${n === 1 ? '' : 's'}`

export async function loader({ params, context }: Route.LoaderArgs) {
	const { account } = context.get(requestContext)
	const { list, count, running } = await inOtherListsPreview(account, params.listId)
	return { list: { id: list.id, name: list.name, found: list.found }, count, running }
}

export async function action({ request, params, context }: Route.ActionArgs) {
	const { account } = context.get(requestContext)
	const submission = parseWithZod(await readFormData(request), { schema: RemoveSchema })
	if (submission.status !== 'success') return data({ result: submission.reply() }, { status: 400 })
	const removed = await removeInOtherLists(account, params.listId)
	return redirectWithSuccess(
		`/lists/${params.listId}`,
		`${leadsWord(removed)} in your other lists removed from this list`,
	)
}

export default function ListDedupe({ loaderData, actionData }: Route.ComponentProps) {
	const { list, count, running } = loaderData
	const formError = actionData?.result.error?.intent?.[0]
	return (
		<>
			<PageHeader
				title="Remove leads in my other lists"
				icon={<Copy />}
				description={`${list.name}: leads whose email another of your lists already has.`}
				actions={
					<Link to={`/lists/${list.id}`} className={buttonClasses('secondary')}>
						Back to the list
					</Link>
				}
			/>
			<Card>
				{running ? (
					<p className="text-sm text-slate-700">
						This list is still being filled: remove its duplicates once it is done.
					</p>
				) : count === 0 ? (
					<p className="text-sm text-slate-700" data-testid="dedupe-preview">
						No lead of this list is in your other lists: nothing to remove.
					</p>
				) : (
					<Form method="post" className="space-y-4">
						<p className="text-sm text-slate-700" data-testid="dedupe-preview">
							{leadsWord(count)} of {list.found.toLocaleString('en')} {count === 1 ? 'is' : 'are'}{' '}
							also in your other lists (same email, trimmed and lower case). They are deleted from
							this list only; the other lists keep theirs.
						</p>
						{formError ? (
							<p role="alert" className="text-sm text-red-700">
								{formError}
							</p>
						) : null}
						<input type="hidden" name="intent" value="remove" />
						<Button type="submit" variant="danger">
							Remove {leadsWord(count)}
						</Button>
					</Form>
				)}
			</Card>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) =>
	pageTitle(matches, 'Remove leads in other lists')
