import type { SubmissionResult } from '@conform-to/react'
import { useEffect, useRef } from 'react'
import { useFetcher, useLocation } from 'react-router'
import { Button } from '../ui/button.tsx'
import { AttachWorkspaceForm, type AttachWorkspaceView } from './attach-workspace-form.tsx'

const linkClasses = 'text-sm font-medium text-indigo-700 hover:underline'

/** The attach-workspace modal of a row's Move (loaded on first use by MoveToWorkspace). */
export function MoveDialog({
	href,
	name,
	itemId,
	openOnMount,
	autoFocus,
}: {
	href: string
	name: string
	itemId: string
	/** Move was clicked before this code was there */
	openOnMount: boolean
	/** the focus was on the link it replaces */
	autoFocus: boolean
}) {
	const ref = useRef<HTMLDialogElement>(null)
	const view = useFetcher<AttachWorkspaceView>()
	const mover = useFetcher<{ result: SubmissionResult<string[]> }>()
	const location = useLocation()
	const titleId = `move-${itemId}-title`
	const open = () => {
		ref.current?.showModal()
		void view.load(href)
	}
	const trigger = useRef<HTMLAnchorElement>(null)
	// a move redirects back to this page (a new location): the modal has done its work
	useEffect(() => {
		ref.current?.close()
	}, [location.key])
	// as it arrives (after the effect above): the link's focus, or its click, carries over
	useEffect(() => {
		if (autoFocus) trigger.current?.focus()
		if (openOnMount) open()
		// eslint-disable-next-line react-hooks/exhaustive-deps
	}, [])
	return (
		<>
			{/* still the link to the page (a new tab, a copied address), and the modal on a plain click */}
			<a
				ref={trigger}
				href={href}
				aria-haspopup="dialog"
				className={linkClasses}
				onClick={(event) => {
					if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
					event.preventDefault()
					open()
				}}
			>
				Move<span className="sr-only"> {name}</span>
			</a>
			<dialog
				ref={ref}
				aria-labelledby={titleId}
				className="m-auto w-full max-w-lg rounded-lg p-0 text-left shadow-xl backdrop:bg-slate-900/50"
			>
				<div className="p-6">
					<h2 id={titleId} className="text-lg font-semibold break-words text-slate-900">
						Move “{name}” to a workspace
					</h2>
					{view.data ? (
						<AttachWorkspaceForm
							key={view.data.item.id}
							view={view.data}
							formId={`attach-workspace-${itemId}`}
							action={href}
							lastResult={mover.data?.result}
							pending={mover.state !== 'idle'}
							FormComponent={mover.Form}
							cancel={
								<Button type="button" variant="ghost" onClick={() => ref.current?.close()}>
									Cancel
								</Button>
							}
						/>
					) : (
						<p className="mt-2 text-sm text-slate-600">Loading workspaces…</p>
					)}
				</div>
			</dialog>
		</>
	)
}
