import type { ReactNode } from 'react'
import { Link } from 'react-router'
import { ConfirmDelete } from './confirm-delete.tsx'
import { buttonClasses } from '../ui/button.tsx'
import { Card } from '../ui/card.tsx'
import { Badge } from '../ui/choice.tsx'

/** One saved thing in a SavedItems list: what it is, where to edit it, how to delete it. */
export type SavedItem = {
	id: string
	name: string
	/** the line(s) under the name: what it does */
	details: ReactNode
	/** it is the one the form below is editing */
	editing: boolean
	/** the Edit link */
	editTo: string
	/** what deleting it does, in the confirm step */
	deleteConsequence: string
	/** what the delete posts to the page's action */
	deleteFields: Record<string, string>
	/** why its delete was refused, shown under it */
	error?: ReactNode
}

/**
 * A card listing saved things (enrichments, chains) by name, each with Edit and a confirmed
 * Delete; the heading's id is the anchor a save redirects to.
 */
export function SavedItems({
	id,
	title,
	items,
	testId,
}: {
	id: string
	title: string
	items: SavedItem[]
	testId?: string
}) {
	return (
		<Card>
			<h2 id={id} className="scroll-mt-4 text-lg font-semibold">
				{title}
			</h2>
			{items.length === 0 ? (
				<p className="mt-2 text-sm text-slate-600">None yet.</p>
			) : (
				<ul className="mt-2 divide-y divide-slate-100" data-testid={testId}>
					{items.map((item) => (
						<li
							key={item.id}
							className="flex flex-wrap items-start justify-between gap-x-4 gap-y-2 py-3"
						>
							<div className="min-w-0 flex-1 basis-60 text-sm wrap-anywhere">
								<p className="font-medium">
									{item.name} {item.editing ? <Badge tone="indigo">Editing</Badge> : null}
								</p>
								{item.details}
							</div>
							<div className="flex shrink-0 items-center gap-1">
								<Link
									to={item.editTo}
									className={buttonClasses('ghost')}
									aria-label={`Edit ${item.name}`}
								>
									Edit
								</Link>
								<ConfirmDelete
									name={item.name}
									consequence={item.deleteConsequence}
									fields={item.deleteFields}
								/>
							</div>
							{item.error ? <div className="w-full">{item.error}</div> : null}
						</li>
					))}
				</ul>
			)}
		</Card>
	)
}
