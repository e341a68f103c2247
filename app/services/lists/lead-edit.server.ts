import { sql, type Kysely } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { FormError, isUuid, notFound } from '../../utils/http-errors.server.ts'
import { inTransaction } from '../../utils/transaction.server.ts'
import { cleanEmail } from '../imports/mapping.ts'
import { findLeadList, type LeadList } from './find-list.server.ts'
import type { LeadEditInput } from './lead-schema.ts'

const LEAD_COLUMNS = [
	'id',
	'email',
	'first_name',
	'last_name',
	'title',
	'company_name',
	'company_domain',
	'linkedin_url',
	'location',
	'phone',
	'email_status',
	'data',
] as const

/**
 * A lead of a lead list of the account, in a workspace this user may use; anything else
 * (another account's list or lead, a lead of another list, not a uuid) is a 404.
 */
export async function findLead(context: AccountContext | null, listId: unknown, leadId: unknown) {
	const { account, list } = await findLeadList(context, listId)
	if (!isUuid(leadId)) notFound('This lead')
	const lead = await db
		.selectFrom('leads')
		.select(LEAD_COLUMNS)
		.where('id', '=', leadId)
		.where('list_id', '=', list.id)
		.executeTakeFirst()
	if (!lead) notFound('This lead')
	return { account, list, lead }
}

// An import or a search writes the list's rows and its count as it goes: a change in between
// would be overwritten by its next checkpoint.
function refuseWhileRunning(list: LeadList) {
	if (list.status === 0 || list.status === 1) {
		throw new FormError('This list is still being filled. Edit its leads once it has finished.')
	}
}

/** Saves a lead's fields: the email lower-cased, the company domain normalised (in SQL). */
export async function updateLead(
	context: AccountContext | null,
	listId: unknown,
	leadId: unknown,
	input: LeadEditInput,
) {
	const { list, lead } = await findLead(context, listId, leadId)
	refuseWhileRunning(list)
	const email = cleanEmail(input.email)
	if (!email) throw new FormError('Enter a valid email address', 'email')
	let saved: { email: string } | undefined
	try {
		saved = await db
			.updateTable('leads')
			.set({
				email: sql`lower(${email})`,
				first_name: input.first_name ?? null,
				last_name: input.last_name ?? null,
				title: input.title ?? null,
				company_name: input.company_name ?? null,
				company_domain: sql`normalize_company_domain(${input.company_domain ?? null})`,
				linkedin_url: input.linkedin_url ?? null,
				location: input.location ?? null,
				phone: input.phone ?? null,
				email_status: input.email_status ?? null,
			})
			.where('id', '=', lead.id)
			.where('list_id', '=', list.id)
			.returning('email')
			.executeTakeFirst()
	} catch (error) {
		// the list's unique (list_id, lower(email)) index
		if ((error as { code?: string }).code === '23505') {
			throw new FormError('This list already has a lead with this email address', 'email')
		}
		throw error
	}
	// deleted meanwhile
	if (!saved) notFound('This lead')
	return { list, lead: { ...lead, email: saved.email } }
}

/**
 * Deletes a lead and counts it out of its list (found) in the same transaction, so that the
 * list's count, the dashboard's copy of it and the page marks (stale once found changes) agree.
 */
export async function deleteLead(
	context: AccountContext | null,
	listId: unknown,
	leadId: unknown,
	executor: Kysely<DB> = db,
) {
	const { list, lead } = await findLead(context, listId, leadId)
	refuseWhileRunning(list)
	await inTransaction(executor, async (trx) => {
		const deleted = await trx
			.deleteFrom('leads')
			.where('id', '=', lead.id)
			.where('list_id', '=', list.id)
			.executeTakeFirst()
		if (deleted.numDeletedRows === 0n) return
		await trx
			.updateTable('processing_list')
			.set({ found: sql`greatest(found - 1, 0)`, updated_at: sql`now()` })
			.where('id', '=', list.id)
			.execute()
	})
	return { list, lead }
}
