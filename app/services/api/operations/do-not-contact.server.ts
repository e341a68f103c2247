import { z } from 'zod'
import { addEntry, listEntries, removeEntry } from '../../do-not-contact/entries.server.ts'
import { AddEntrySchema } from '../../do-not-contact/schemas.ts'
import { defineOperation } from '../operation.ts'
import { ApiProblem } from '../problem.server.ts'
import { listOf, PageQuery, pageOf } from '../pagination.ts'

// The do-not-contact list through the page's service: who may change account-wide entries
// and a workspace's, free mail domains confirmed first, duplicates refused.

const Entry = z
	.object({
		id: z.uuid(),
		object: z.literal('do_not_contact_entry'),
		value: z.string().meta({ description: 'An email address or a domain, lower case.' }),
		kind: z.string().meta({ description: 'email or domain' }),
		reason: z.string(),
		workspace_id: z.uuid().nullable().meta({ description: 'null: the whole account.' }),
		added_by: z.string().nullable(),
		created_at: z.iso.datetime(),
	})
	.meta({ id: 'DoNotContactEntry' })

// the add form's own fields; the form's second submit for a free mail domain is a boolean here
const AddBody = AddEntrySchema.omit({ intent: true }).extend({
	confirmFreeMail: z.boolean().optional().meta({
		description: 'Needed to block a free mail domain (gmail.com blocks millions).',
	}),
})

// newest first under a stable order (created, id): an offset cursor, as the page pages
const offsetCursor = (offset: number) => Buffer.from(`o:${offset}`).toString('base64url')
function offsetOf(cursor: string | undefined) {
	if (!cursor) return 0
	const offset = Number(Buffer.from(cursor, 'base64url').toString('utf8').replace(/^o:/, ''))
	if (!Number.isSafeInteger(offset) || offset < 0)
		throw new ApiProblem(400, 'invalid_cursor', 'This cursor is not one of ours.', {
			errors: [{ field: 'starting_after', code: 'invalid', message: 'Not a cursor' }],
		})
	return offset
}

export const doNotContactOperations = [
	defineOperation({
		id: 'listDoNotContact',
		method: 'GET',
		path: '/do-not-contact',
		summary: 'List do-not-contact entries',
		description:
			"Newest first: the account-wide entries and those of the token's workspaces; `q` keeps those containing it.",
		tag: 'Do not contact',
		scope: 'do-not-contact:read',
		query: PageQuery.extend({
			q: z.string().trim().max(320).optional().meta({ description: 'Part of the value.' }),
		}),
		response: listOf(Entry),
		async handle({ account, query }) {
			const offset = offsetOf(query.starting_after)
			const { entries } = await listEntries(account, {
				q: query.q,
				limit: query.limit + 1,
				offset,
			})
			return pageOf(
				entries,
				query.limit,
				() => offsetCursor(offset + query.limit),
				(entry) => ({
					id: entry.id,
					object: 'do_not_contact_entry' as const,
					value: entry.value,
					kind: entry.kind,
					reason: entry.reason,
					workspace_id: entry.workspaceId,
					added_by: entry.addedBy,
					created_at: entry.createdAt.toISOString(),
				}),
			)
		},
	}),
	defineOperation({
		id: 'createDoNotContact',
		method: 'POST',
		path: '/do-not-contact',
		summary: 'Add a do-not-contact entry',
		description:
			'`scope`: `account` (owner and team admins) or a workspace id. Leads matching it are left out of uploads and counted as suppressed in lists.',
		tag: 'Do not contact',
		scope: 'do-not-contact:write',
		screen: 'do-not-contact',
		body: AddBody,
		status: 201,
		response: Entry,
		async handle({ account, body }) {
			const added = await addEntry(account, body)
			return {
				id: added.id,
				object: 'do_not_contact_entry' as const,
				value: added.value,
				kind: added.kind,
				reason: body.reason,
				workspace_id: added.workspaceId,
				added_by: account.user.email,
				created_at: added.createdAt.toISOString(),
			}
		},
	}),
	defineOperation({
		id: 'deleteDoNotContact',
		method: 'DELETE',
		path: '/do-not-contact/{id}',
		summary: 'Remove a do-not-contact entry',
		tag: 'Do not contact',
		scope: 'do-not-contact:write',
		screen: 'do-not-contact',
		params: z.object({ id: z.uuid({ error: 'Not an id' }).meta({ description: 'The entry.' }) }),
		response: z.object({
			id: z.uuid(),
			object: z.literal('do_not_contact_entry'),
			deleted: z.literal(true),
		}),
		async handle({ account, params }) {
			const removed = await removeEntry(account, params.id)
			return { id: removed.id, object: 'do_not_contact_entry' as const, deleted: true as const }
		},
	}),
]
