/**
 * The form's idempotency key (made by the loader with newFormKey): sending the same form
 * again, by a double click, going back or a retry, does the work once and answers as the
 * first time did.
 */
export function IdempotencyKey({ value }: { value: string }) {
	return <input type="hidden" name="idempotencyKey" value={value} readOnly />
}
