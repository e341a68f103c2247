import { parseWithZod } from '../../utils/form-bounds.ts'
import { data } from 'react-router'
import type { z } from 'zod'
import { formErrorReply } from '../../utils/form-errors.server.ts'

/**
 * The admin pages' actions: parse the form with the zod schema its conform form uses, run the
 * change, and answer a failed one with 400 and the errors for the form that sent it (told
 * apart by `formKey`). Services throw 403 and 404 themselves.
 */
export async function runFormAction<S extends z.ZodType>(
	formData: FormData,
	schema: S,
	run: (value: z.output<S>) => Promise<Response>,
) {
	const submission = parseWithZod(formData, { schema })
	const key = String(formData.get('formKey') ?? '')
	const intent = String(formData.get('intent') ?? '')
	if (submission.status !== 'success') {
		return data({ intent, key, result: submission.reply() }, { status: 400 })
	}
	try {
		return await run(submission.value)
	} catch (error) {
		return formErrorReply(error, submission, { intent, key })
	}
}
