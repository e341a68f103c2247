import { getFormProps, getSelectProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { useEffect, useRef, type ReactNode } from 'react'
import { Form, Link, useFetcher, useLocation } from 'react-router'
import {
	attachWorkspaceHref,
	AttachWorkspaceSchema,
	type AttachableType,
} from '../../services/workspaces/schemas.ts'
import { useHydrated } from '../../utils/use-hydrated.ts'
import { Button, SubmitButton } from '../ui/button.tsx'
import { FormErrors, SelectField } from '../ui/field.tsx'

/** What the attach-workspace loader answers: the item, where it is, where it may go. */
export type AttachWorkspaceView = {
	item: { type: AttachableType; id: string; name: string; kind: string; canMove: boolean }
	current: { id: string; name: string } | null
	workspaces: { id: string; name: string }[]
	/** the page the move started from, which it returns to */
	back: string
}

const linkClasses = 'text-sm font-medium text-indigo-700 hover:underline'

/**
 * The attach-workspace step (SPEC.md section 2): where the item is, and a form to move it. The
 * same form serves the /attach-workspace page (no JavaScript) and the modal.
 */
export function AttachWorkspaceForm({
	view,
	formId,
	action,
	lastResult,
	pending,
	FormComponent = Form,
	cancel,
}: {
	view: AttachWorkspaceView
	formId: string
	action?: string
	lastResult?: SubmissionResult<string[]>
	pending: boolean
	FormComponent?: typeof Form
	cancel: ReactNode
}) {
	const { item, current, workspaces, back } = view
	const others = workspaces.filter((w) => w.id !== current?.id)
	const [form, fields] = useForm({
		id: formId,
		lastResult,
		constraint: getZodConstraint(AttachWorkspaceSchema),
		defaultValue: { workspaceId: others[0]?.id },
		onValidate: ({ formData }) => parseWithZod(formData, { schema: AttachWorkspaceSchema }),
	})
	return (
		<>
			<p className="mt-1 text-sm text-slate-600" data-testid="current-workspace">
				This {item.kind} is{' '}
				{current ? (
					<>
						in <span className="font-medium text-slate-900">{current.name}</span>
					</>
				) : (
					'not in any workspace'
				)}
				.
			</p>
			{!item.canMove ? (
				<>
					<p className="mt-4 rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200">
						You can view domains and inbox orders but not change them. Ask the account owner for the
						permission to change them.
					</p>
					<div className="mt-4 flex justify-end">{cancel}</div>
				</>
			) : others.length === 0 ? (
				<>
					<p className="mt-4 text-sm text-slate-700">
						There is no other workspace to move it to.{' '}
						<Link to="/workspaces" className="font-semibold text-indigo-700 hover:underline">
							Manage workspaces
						</Link>
					</p>
					<div className="mt-4 flex justify-end">{cancel}</div>
				</>
			) : (
				<FormComponent
					method="post"
					action={action}
					className="mt-4 space-y-4"
					{...getFormProps(form)}
				>
					<FormErrors id={form.errorId} errors={form.errors} />
					<input type="hidden" name="redirectTo" value={back} />
					<SelectField
						label="Move it to"
						errors={fields.workspaceId.errors}
						errorId={fields.workspaceId.errorId}
						selectProps={getSelectProps(fields.workspaceId)}
						options={others}
					/>
					<div className="flex flex-wrap items-center justify-end gap-3">
						{cancel}
						<SubmitButton pending={pending} pendingText="Moving…">
							Move
						</SubmitButton>
					</div>
				</FormComponent>
			)}
		</>
	)
}

/**
 * "Move" on a row of a list, company list, domain or inbox order. With JavaScript it opens the
 * attach-workspace modal; without, it is a link to the /attach-workspace page. Either way the
 * move comes back to this page.
 */
export function MoveToWorkspace({
	type,
	id,
	name,
}: {
	type: AttachableType
	id: string
	name: string
}) {
	const hydrated = useHydrated()
	const location = useLocation()
	const href = attachWorkspaceHref(type, id, location.pathname + location.search)
	if (!hydrated) {
		return (
			<Link to={href} className={linkClasses}>
				Move<span className="sr-only"> {name}</span>
			</Link>
		)
	}
	return <MoveDialog href={href} name={name} itemId={id} />
}

function MoveDialog({ href, name, itemId }: { href: string; name: string; itemId: string }) {
	const ref = useRef<HTMLDialogElement>(null)
	const view = useFetcher<AttachWorkspaceView>()
	const mover = useFetcher<{ result: SubmissionResult<string[]> }>()
	const location = useLocation()
	const titleId = `move-${itemId}-title`
	// a move redirects back to this page (a new location): the modal has done its work
	useEffect(() => {
		ref.current?.close()
	}, [location.key])
	return (
		<>
			<button
				type="button"
				className={linkClasses}
				onClick={() => {
					ref.current?.showModal()
					void view.load(href)
				}}
			>
				Move<span className="sr-only"> {name}</span>
			</button>
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
