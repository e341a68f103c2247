import { expect, test } from 'vitest'
import { describeRejection } from './rejections.ts'

test("EmailBison's validation messages read in the user's words", () => {
	expect(describeRejection('The leads.3.first_name field is required.')).toBe(
		'First name is missing: EmailBison requires it.',
	)
	expect(
		describeRejection(
			'The leads.0.email field must be a valid email address. The leads.0.last_name field is required.',
		),
	).toBe('The email address is not valid. Last name is missing: EmailBison requires it.')
	expect(describeRejection('Unknown custom variable pitch.')).toBe(
		'EmailBison has no custom variable “pitch”.',
	)
	expect(
		describeRejection('The leads.12.title field must not be greater than 255 characters.'),
	).toBe('Title is too long (at most 255 characters).')
	// ours already: unchanged
	expect(describeRejection('EmailBison did not return this lead (it may skip this address).')).toBe(
		'EmailBison did not return this lead (it may skip this address).',
	)
})
