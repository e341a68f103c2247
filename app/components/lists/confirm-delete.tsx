import type { ReactNode } from 'react'
import { Form } from 'react-router'
import { Button } from '../ui/button.tsx'

/**
 * A costly or destructive one-click action that asks first: the summary opens a confirm step
 * (a <details>, so it works without JavaScript) whose button posts `fields` to this page's
 * action.
 */
export function ConfirmAction({
	label,
	name,
	confirmLabel,
	consequence,
	fields,
	testId = 'confirm-action',
}: {
	/** the summary's word, e.g. "Cancel" */
	label: string
	/** what it acts on, as the user knows it (read to screen readers after the label) */
	name: string
	/** the confirm button's words, e.g. Cancel “Leads Q3” */
	confirmLabel: string
	/** what happens, in a sentence or two */
	consequence: ReactNode
	fields: Record<string, string>
	testId?: string
}) {
	return (
		<details className="group" data-testid={testId}>
			<summary className="cursor-pointer list-none text-sm font-medium text-red-700 hover:underline">
				{label}
				<span className="sr-only"> {name}</span>
			</summary>
			<div className="mt-2 max-w-72 space-y-3 rounded-md bg-red-50 p-3 text-left ring-1 ring-red-200">
				<p className="text-sm whitespace-normal text-slate-800">{consequence}</p>
				<Form method="post">
					{Object.entries(fields).map(([key, value]) => (
						<input key={key} type="hidden" name={key} value={value} />
					))}
					<Button type="submit" variant="danger" className="px-3 py-1.5">
						{confirmLabel}
					</Button>
				</Form>
			</div>
		</details>
	)
}

/** "Delete" that asks first (ConfirmAction with the words of a deletion). */
export function ConfirmDelete({
	name,
	consequence,
	fields,
}: {
	/** what is deleted, as the user knows it */
	name: string
	/** what goes with it, in a sentence */
	consequence: ReactNode
	fields: Record<string, string>
}) {
	return (
		<ConfirmAction
			label="Delete"
			name={name}
			confirmLabel={`Delete “${name}”`}
			consequence={<>{consequence} This cannot be undone.</>}
			fields={fields}
			testId="confirm-delete"
		/>
	)
}
