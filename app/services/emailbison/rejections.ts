// EmailBison answers a refused lead in Laravel's words about its request body
// ("The leads.3.first_name field is required."); the user knows the lead, not the body.

const FIELD_WORDS: Record<string, string> = {
	email: 'email address',
	first_name: 'first name',
	last_name: 'last name',
	title: 'title',
	company: 'company',
	notes: 'notes',
	custom_variables: 'custom variables',
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

function fieldWords(field: string) {
	return FIELD_WORDS[field] ?? field.replace(/_/g, ' ')
}

/** One of EmailBison's messages about a lead, in the user's words. */
function translateOne(message: string): string {
	const text = message.trim()
	let m = /^The leads\.\d+\.(\w+) field is required\.?$/i.exec(text)
	if (m) return `${capital(fieldWords(m[1]!))} is missing: EmailBison requires it.`
	m = /^The leads\.\d+\.email (?:field )?must be a valid email address\.?$/i.exec(text)
	if (m) return 'The email address is not valid.'
	m =
		/^The leads\.\d+\.(\w+) (?:field )?(?:must not be greater than|may not be greater than) (\d+) characters\.?$/i.exec(
			text,
		)
	if (m) return `${capital(fieldWords(m[1]!))} is too long (at most ${m[2]} characters).`
	m = /^Unknown custom variable (.+?)\.?$/i.exec(text)
	if (m) return `EmailBison has no custom variable “${m[1]}”.`
	// anything else: without the request-body path
	return text.replace(/\bThe leads\.\d+\.(\w+)( field)?/gi, (_, field: string) =>
		capital(fieldWords(field)),
	)
}

/**
 * A stored rejection reason (one or more of EmailBison's messages, joined by spaces) in the
 * user's words. Messages already translated pass through unchanged.
 */
export function describeRejection(reason: string | null): string {
	if (!reason) return ''
	// the messages of one lead are joined by spaces; a message may hold dots (an address)
	const messages = reason.split(/(?<=\.)\s+(?=The leads\.|Unknown custom variable)/)
	return [...new Set(messages.map(translateOne))].join(' ')
}
