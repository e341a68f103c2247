import { data, redirectDocument } from 'react-router'
import { z } from 'zod'
import type { AccountContext } from '../../context.server.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { formErrorReply } from '../../utils/form-errors.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { redirectWithSuccess } from '../../utils/toast.server.ts'
import { recordSelection, startBulkAction } from '../bulk/bulk-actions.server.ts'
import { bulkSelection, bulkSelectionFields } from '../bulk/schemas.ts'
import { oncePerSubmission } from '../idempotency/form-submissions.server.ts'
import { actingAccount } from '../workspaces/access.server.ts'
import { companyBulk } from './companies-bulk.server.ts'
import { leadBulk } from './leads-bulk.server.ts'
import { listBulk, matchingLists, ownedLists } from './lists-bulk.server.ts'

// The bulk forms of the list page (its leads) and of /scrape (its lists), decision 0089: an
// action, the ticked ids or the page's filter; a job for the changes (once per submission),
// a kept selection and a download for the export.

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'

export const LeadBulkSchema = z.object({
	intent: z.literal('bulk'),
	action: z
		.string({ error: 'Pick an action.' })
		.regex(new RegExp(`^(delete|export|move:${UUID})$`), 'Pick an action.'),
	...bulkSelectionFields({
		q: z.string().max(200).optional(),
		status: z.string().max(20).optional(),
	}),
})

export const CompanyBulkSchema = z.object({
	intent: z.literal('bulk'),
	action: z.enum(['delete', 'export'], { error: 'Pick an action.' }),
	...bulkSelectionFields({ q: z.string().max(200).optional() }),
})

export const ListBulkSchema = z.object({
	intent: z.literal('bulk'),
	action: z
		.string({ error: 'Pick an action.' })
		.regex(
			new RegExp(`^(delete|export|move:${UUID}|enrich:(enrichment|chain):${UUID})$`),
			'Pick an action.',
		),
	payWith: z.enum(['ownKey', 'credits']).default('credits'),
	...bulkSelectionFields({
		q: z.string().max(200).optional(),
		workspace: z.string().max(64).optional(),
	}),
})

const plural = (n: number, one: string, many: string) =>
	`${n.toLocaleString('en')} ${n === 1 ? one : many}`

/** The list page's bulk form: delete or move its leads (a job), or export them (a download). */
export async function leadsBulkForm(
	account: AccountContext | null,
	listId: string,
	formData: FormData,
) {
	const acting = actingAccount(account)
	const submission = parseWithZod(formData, { schema: LeadBulkSchema })
	if (submission.status !== 'success') return data({ result: submission.reply() }, { status: 400 })
	const chosen = bulkSelection(submission.value)
	// the list is the page's, never the form's: "all matching" is this list's matches
	const selection = chosen.filter ? { filter: { ...chosen.filter, list: listId } } : chosen
	const [action, target] = submission.value.action.split(':') as [string, string?]
	const here = `/lists/${listId}`
	try {
		if (action === 'export') {
			const id = await recordSelection(acting, leadBulk, selection)
			// a document load: the answer is a file, the page stays
			return redirectDocument(`${here}/download?selection=${id}`)
		}
		const started = await oncePerSubmission(
			{ accountId: acting.accountId, form: 'leads-bulk', formData },
			(trx) =>
				startBulkAction(
					acting,
					leadBulk,
					{ action, params: target ? { listId: target } : {}, selection },
					trx,
				),
		)
		return redirectWithSuccess(
			`${here}?bulk=${started.id}`,
			`${started.label}: ${plural(started.total, 'lead', 'leads')} queued`,
		)
	} catch (error) {
		return formErrorReply(error, submission)
	}
}

/** A company list page's bulk form: delete its companies (a job), or export them (a download). */
export async function companiesBulkForm(
	account: AccountContext | null,
	listId: string,
	formData: FormData,
) {
	const acting = actingAccount(account)
	const submission = parseWithZod(formData, { schema: CompanyBulkSchema })
	if (submission.status !== 'success') return data({ result: submission.reply() }, { status: 400 })
	const chosen = bulkSelection(submission.value)
	// the list is the page's, never the form's: "all matching" is this list's matches
	const selection = chosen.filter ? { filter: { ...chosen.filter, list: listId } } : chosen
	const { action } = submission.value
	const here = `/company-lists/${listId}`
	try {
		if (action === 'export') {
			const id = await recordSelection(acting, companyBulk, selection)
			// a document load: the answer is a file, the page stays
			return redirectDocument(`/lists/${listId}/download?kind=companies&selection=${id}`)
		}
		const started = await oncePerSubmission(
			{ accountId: acting.accountId, form: 'companies-bulk', formData },
			(trx) => startBulkAction(acting, companyBulk, { action, params: {}, selection }, trx),
		)
		return redirectWithSuccess(
			`${here}?bulk=${started.id}`,
			`${started.label}: ${plural(started.total, 'company', 'companies')} queued`,
		)
	} catch (error) {
		return formErrorReply(error, submission)
	}
}

/** /scrape's bulk form: move, delete or enrich lists (a job), or export them (a download). */
export async function listsBulkForm(account: AccountContext | null, formData: FormData) {
	const acting = actingAccount(account)
	const submission = parseWithZod(formData, { schema: ListBulkSchema })
	if (submission.status !== 'success') return data({ result: submission.reply() }, { status: 400 })
	const selection = bulkSelection(submission.value)
	const [action, ...rest] = submission.value.action.split(':')
	const params: Record<string, string> =
		action === 'move'
			? { workspaceId: rest[0]! }
			: action === 'enrich'
				? { target: rest.join(':'), payWith: submission.value.payWith }
				: {}
	try {
		if (action === 'export') {
			await exportKind(acting, selection)
			const id = await recordSelection(acting, listBulk, selection)
			return redirectDocument(`/lists/export?selection=${id}`)
		}
		const started = await oncePerSubmission(
			{ accountId: acting.accountId, form: 'lists-bulk', formData },
			(trx) => startBulkAction(acting, listBulk, { action: action!, params, selection }, trx),
		)
		return redirectWithSuccess(
			`/scrape?bulk=${started.id}`,
			`${started.label}: ${plural(started.total, 'list', 'lists')} queued`,
		)
	} catch (error) {
		return formErrorReply(error, submission)
	}
}

/**
 * The kind of lists a lists export takes, and the account's lists it takes: one kind per file
 * (a lead's and a company's columns differ), none of another account's.
 */
export async function exportKind(
	account: AccountContext | null,
	selection: { ids: string[] } | { filter: Record<string, string> },
) {
	const lists =
		'ids' in selection
			? await ownedLists(account, selection.ids)
			: await matchingLists(account, selection.filter)
	const kinds = new Set(lists.map((l) => l.kind))
	if (lists.length === 0) throw new FormError('None of these lists is yours to export.', 'action')
	if (kinds.size > 1)
		throw new FormError(
			'Export lead lists and company lists separately: their columns differ.',
			'action',
		)
	return { kind: lists[0]!.kind, listIds: lists.map((l) => l.id) }
}
