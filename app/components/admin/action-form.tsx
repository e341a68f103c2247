import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { parseWithZod } from '../../utils/form-bounds.ts'
import type { ReactNode } from 'react'
import { Form } from 'react-router'
import type { z } from 'zod'
import { SubmitButton, type ButtonVariant } from '../ui/button.tsx'
import { FormErrors } from '../ui/field.tsx'
import { useIsPending } from '../../utils/forms.ts'
import { cn } from '../../utils/cn.ts'

export type ActionResult = { intent?: string; key?: string; result?: SubmissionResult<string[]> }

/**
 * One admin form: its intent (several forms share a page), conform with the same zod schema
 * the action parses, the errors of its last failed submission, and a submit button. Works
 * with JavaScript off: a plain POST to the page's action.
 */
export function ActionForm<S extends z.ZodObject>({
	id,
	intent,
	schema,
	actionData,
	submit,
	pendingText,
	variant,
	className,
	hidden,
	children,
}: {
	id: string
	intent: string
	schema: S
	actionData: ActionResult | undefined
	submit: string
	pendingText?: string
	variant?: ButtonVariant
	className?: string
	/** hidden fields besides the intent */
	hidden?: Record<string, string>
	children?: (fields: ReturnType<typeof useForm<z.input<S>>>[1]) => ReactNode
}) {
	const pending = useIsPending(intent)
	const mine = actionData?.key === id
	const [form, fields] = useForm<z.input<S>>({
		id,
		lastResult: mine ? actionData?.result : undefined,
		constraint: getZodConstraint(schema),
		// the schema is generic here; conform checks the same fields the action parses
		onValidate: ({ formData }) => parseWithZod(formData, { schema }) as never,
		// not onBlur: clearing a server error on blur moves the page under a click elsewhere
		shouldRevalidate: 'onInput',
	})
	return (
		<Form method="post" className={cn('space-y-3', className)} {...getFormProps(form)}>
			<input type="hidden" name="intent" value={intent} />
			<input type="hidden" name="formKey" value={id} />
			{Object.entries(hidden ?? {}).map(([name, value]) => (
				<input key={name} type="hidden" name={name} value={value} />
			))}
			<FormErrors id={form.errorId} errors={form.errors} />
			{children?.(fields)}
			<SubmitButton variant={variant} pending={pending} pendingText={pendingText}>
				{submit}
			</SubmitButton>
		</Form>
	)
}

export function formatWhen(value: Date | string | null | undefined) {
	if (!value) return '—'
	const date = typeof value === 'string' ? new Date(value) : value
	return date.toISOString().replace('T', ' ').slice(0, 16) + ' UTC'
}
