import { getZodConstraint } from '@conform-to/zod/v4'
import { expect, test } from 'vitest'
import { SignInSchema } from './schemas.ts'
import { loadSignInValidation, signInConstraint } from './sign-in-form.ts'

test('the written-out sign-in constraint is the schema’s', () => {
	expect(signInConstraint).toEqual(getZodConstraint(SignInSchema))
})

test('the loaded check gives the schema’s messages at the fields', async () => {
	const validate = await loadSignInValidation()
	const form = new FormData()
	form.set('email', 'ada@@example')
	form.set('password', '')
	const reply = validate(form).reply()
	expect(reply.error?.email).toEqual(['Enter a valid email address'])
	expect(reply.error?.password).toEqual(['Enter your password'])
})
