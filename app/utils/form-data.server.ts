import { data } from 'react-router'
import { formOutOfBounds } from './form-bounds.ts'

/**
 * The posted form, for every action (`request.formData()` is not used directly; lint
 * refuses it). A body that is not a form (JSON, text, broken multipart, a wrong content
 * type, a body cut off at the limit) is the client's mistake: 400, never a 500; so is a
 * form past the bounds every form is held to (app/utils/form-bounds.ts).
 */
export async function readFormData(request: Request): Promise<FormData> {
	let formData: FormData
	try {
		formData = await request.formData()
	} catch {
		throw data('This request does not carry a readable form.', { status: 400 })
	}
	const problem = formOutOfBounds(formData.entries())
	if (problem) throw data(problem, { status: 400 })
	// PostgreSQL refuses a NUL in text: the form's mistake, not a 500 at the first write
	for (const [name, value] of formData)
		if (name.includes('\0') || (typeof value === 'string' && value.includes('\0')))
			throw data('This form carries a character no field can hold.', { status: 400 })
	return formData
}
