import { getFormProps, getSelectProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { parseWithZod } from '../../utils/form-bounds.ts'
import type { ReactNode } from 'react'
import { Form, Link } from 'react-router'
import { AttachWorkspaceSchema, type AttachableType } from '../../services/workspaces/schemas.ts'
import { SubmitButton } from '../ui/button.tsx'
import { FormErrors, SelectField } from '../ui/field.tsx'

/** What the attach-workspace loader answers: the item, where it is, where it may go. */
export type AttachWorkspaceView = {
	item: { type: AttachableType; id: string; name: string; kind: string; canMove: boolean }
	current: { id: string; name: string } | null
	workspaces: { id: string; name: string }[]
	/** the page the move started from, which it returns to */
	back: string
}

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
