import { Columns3 } from 'lucide-react'
import { data, Form, Link, useNavigation } from 'react-router'
import type { Route } from './+types/list-columns'
import { SubmitButton } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { EmptyState } from '../components/ui/empty-state.tsx'
import { FormErrors } from '../components/ui/field.tsx'
import { Select } from '../components/ui/select.tsx'
import { requestContext } from '../context.server.ts'
import { keptColumns, remapKeptColumn } from '../services/lists/remap-columns.server.ts'
import { REMAP_FIELDS, RemapSchema } from '../services/lists/remap-schema.ts'
import { actingAccount } from '../services/workspaces/access.server.ts'
import { parseWithZod } from '../utils/form-bounds.ts'
import { readFormData } from '../utils/form-data.server.ts'
import { formErrorReply } from '../utils/form-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'

// An imported list's kept columns (leads.data), each of which can be moved into a lead field
// after the import (decision 0081).

export async function loader({ params, context }: Route.LoaderArgs) {
	const { list, columns } = await keptColumns(context.get(requestContext).account, params.listId)
	return { list: { id: list.id, name: list.name, found: list.found }, columns }
}

export async function action({ request, params, context }: Route.ActionArgs) {
	const account = actingAccount(context.get(requestContext).account)
	const formData = await readFormData(request)
	const submission = parseWithZod(formData, { schema: RemapSchema })
	const column = String(formData.get('column') ?? '')
	if (submission.status !== 'success') {
		return data({ column, result: submission.reply() }, { status: 400 })
	}
	try {
		const { queued, leads } = await remapKeptColumn(account, params.listId, submission.value)
		const label = REMAP_FIELDS.find((f) => f.key === submission.value.field)!.label
		const count = `${leads.toLocaleString('en')} ${leads === 1 ? 'lead' : 'leads'}`
		return redirectWithSuccess(
			`/lists/${params.listId}`,
			queued
				? `Moving “${submission.value.column}” into ${label} for ${count} in the background`
				: `“${submission.value.column}” moved into ${label} for ${count}`,
		)
	} catch (error) {
		return formErrorReply(error, submission, { column })
	}
}

export default function ListColumns({ loaderData, actionData }: Route.ComponentProps) {
	const { list, columns } = loaderData
	const navigation = useNavigation()
	return (
		<>
			<PageHeader
				title={`Map the columns of ${list.name}`}
				icon={<Columns3 />}
				description="The import kept these columns with each lead. Move one into a lead field: every lead of the list that has it gets its value."
			/>
			<Card className="max-w-3xl">
				{columns.length === 0 ? (
					<EmptyState className="shadow-none" icon={<Columns3 />} title="No kept columns">
						This list keeps no other columns from its import.
					</EmptyState>
				) : (
					<ul className="divide-y divide-slate-200">
						{columns.map((column, index) => {
							const mine = actionData?.column === column ? actionData.result : undefined
							const pending =
								navigation.state !== 'idle' && navigation.formData?.get('column') === column
							return (
								<li key={column} className="py-4" data-testid="kept-column">
									<Form method="post" className="flex flex-wrap items-end gap-3">
										<input type="hidden" name="intent" value="remap" />
										<input type="hidden" name="column" value={column} />
										<p className="min-w-40 flex-1 font-semibold break-words text-slate-900">
											{column}
										</p>
										<Select
											id={`field-${index}`}
											name="field"
											label={`Lead field for “${column}”`}
											labelClassName="sr-only"
											options={[
												{ value: '', label: 'Choose a lead field' },
												...REMAP_FIELDS.map((f) => ({ value: f.key, label: f.label })),
											]}
											errors={mine?.error?.field ?? null}
											className="min-w-48"
										/>
										<SubmitButton pending={pending} pendingText="Moving…">
											Move<span className="sr-only"> “{column}”</span>
										</SubmitButton>
									</Form>
									<FormErrors
										id={`column-${index}-errors`}
										errors={mine?.error?.[''] ?? mine?.error?.column ?? null}
									/>
								</li>
							)
						})}
					</ul>
				)}
				<p className="mt-4 text-sm">
					<Link to={`/lists/${list.id}`} className="text-indigo-700 underline">
						Back to the list
					</Link>
				</p>
			</Card>
		</>
	)
}

export const meta: Route.MetaFunction = ({ loaderData, matches }) =>
	pageTitle(matches, loaderData ? `Map the columns of ${loaderData.list.name}` : 'Map columns')
