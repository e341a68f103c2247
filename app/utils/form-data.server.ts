import { data } from 'react-router'

/**
 * The posted form, for every action (`request.formData()` is not used directly; lint
 * refuses it). A body that is not a form (JSON, text, broken multipart, a wrong content
 * type, a body cut off at the limit) is the client's mistake: 400, never a 500.
 */
export async function readFormData(request: Request): Promise<FormData> {
	try {
		return await request.formData()
	} catch {
		throw data('This request does not carry a readable form.', { status: 400 })
	}
}
