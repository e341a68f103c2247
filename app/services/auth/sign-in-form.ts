// What the sign-in page needs from the browser's side without zod: the sign-in page
// loads zod after hydration (docs/decisions/0030-sign-in-page-javascript-budget.md).

/** getZodConstraint(SignInSchema), written out (sign-in-form.test.ts keeps them equal). */
export const signInConstraint = {
	email: { required: true },
	password: { required: true },
	redirectTo: { required: false },
}

/** The client-side check of the sign-in form, loaded on demand. */
export async function loadSignInValidation() {
	const [{ parseWithZod }, { SignInSchema }] = await Promise.all([
		import('@conform-to/zod/v4'),
		import('./schemas.ts'),
	])
	return (formData: FormData) => parseWithZod(formData, { schema: SignInSchema })
}
