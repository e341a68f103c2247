import { z } from 'zod'
import {
	detectHeader,
	guessMapping,
	LEAD_FIELD_KEYS,
	MappingSchema,
} from '../../imports/mapping.ts'
import { startCsvImport } from '../../imports/start-import.server.ts'
import { readCsvUploadRequest } from '../../imports/upload-request.server.ts'
import { findCompanyList, findLeadList, leadListRows } from '../../lists/find-list.server.ts'
import { actingAccount } from '../../workspaces/access.server.ts'
import { leadsPageQuery } from '../../lists/leads-page.server.ts'
import { listIndexPage, type ListIndexRow } from '../../lists/list-index.server.ts'
import { deleteLeadList } from '../../lists/manage-list.server.ts'
import { STATUS_FILTERS } from '../../verification/statuses.ts'
import { defineOperation } from '../operation.ts'
import { ApiProblem } from '../problem.server.ts'
import { createdCursor, listOf, PageQuery, pageOf, readCreatedCursor } from '../pagination.ts'

// Lead lists, company lists and a list's leads, through the services the list pages use.

const Id = z.uuid({ error: 'Not an id' })
const IdParams = z.object({ id: Id.meta({ description: 'The list id.' }) })

const JobStatus = z
	.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)])
	.meta({ description: '0 pending, 1 processing, 2 finished, 3 failed' })

export const ListSchema = z
	.object({
		id: z.uuid(),
		object: z.enum(['lead_list', 'company_list']),
		name: z.string(),
		source: z.string().meta({ description: 'apollo, upload or companies' }),
		status: JobStatus,
		progress: z.number().int(),
		requested: z.number().int(),
		found: z.number().int(),
		error: z.string().nullable(),
		workspace_id: z.uuid().nullable(),
		created_at: z.iso.datetime(),
		finished_at: z.iso.datetime().nullable(),
	})
	.meta({ id: 'List' })

function listItem(kind: 'leads' | 'companies', row: ListIndexRow) {
	return {
		id: row.id,
		object: kind === 'leads' ? ('lead_list' as const) : ('company_list' as const),
		name: row.name,
		source: row.source_type,
		status: row.status as 0 | 1 | 2 | 3,
		progress: row.progress,
		requested: row.requested,
		found: row.found,
		error: row.error,
		workspace_id: row.workspace_id,
		created_at: row.created_at.toISOString(),
		finished_at: row.finished_at?.toISOString() ?? null,
	}
}

function detectsHeader(head: string[][]) {
	return detectHeader(head)
}

function afterOf(cursor: string | undefined) {
	const after = readCreatedCursor(cursor)
	if (after === undefined) {
		throw new ApiProblem(400, 'invalid_cursor', 'This cursor is not one of ours.', {
			errors: [{ field: 'starting_after', code: 'invalid', message: 'Not a cursor' }],
		})
	}
	return after
}

const listsOperation = (kind: 'leads' | 'companies') =>
	defineOperation({
		id: kind === 'leads' ? 'listLeadLists' : 'listCompanyLists',
		method: 'GET',
		path: kind === 'leads' ? '/lead-lists' : '/company-lists',
		summary: kind === 'leads' ? 'List lead lists' : 'List company lists',
		description: 'Newest first, in the workspaces the token may use.',
		tag: 'Lists',
		scope: 'lists:read',
		query: PageQuery,
		response: listOf(ListSchema),
		async handle({ account, query }) {
			const rows = await listIndexPage(account, kind, {
				limit: query.limit,
				after: afterOf(query.starting_after),
			})
			return pageOf(rows, query.limit, createdCursor, (row) => listItem(kind, row))
		},
	})

export const LeadSchema = z
	.object({
		id: z.uuid(),
		email: z.string(),
		first_name: z.string().nullable(),
		last_name: z.string().nullable(),
		title: z.string().nullable(),
		company_name: z.string().nullable(),
		company_domain: z.string().nullable(),
		linkedin_url: z.string().nullable(),
		location: z.string().nullable(),
		phone: z.string().nullable(),
		email_status: z.string().nullable().meta({ description: "The source's email status." }),
		verification_status: z
			.enum(STATUS_FILTERS)
			.exclude(['unverified'])
			.nullable()
			.meta({ description: 'Our check (null: never verified).' }),
		role_account: z.boolean().nullable(),
		data: z.record(z.string(), z.unknown()),
	})
	.meta({ id: 'Lead' })

const LeadsQuery = PageQuery.extend({
	starting_after: Id.optional().meta({
		description: 'The `next_cursor` (a lead id) of the previous page.',
	}),
	q: z.string().trim().max(200).optional().meta({
		description: 'Matches the start of the email, first name, last name or company.',
	}),
	verification_status: z.enum(STATUS_FILTERS).optional().meta({
		description: 'Only leads with this verification status (`unverified`: never checked).',
	}),
})

const UploadSchema = z
	.object({
		id: z.uuid().meta({ description: 'Pass as `uploadId` to create a list from it.' }),
		object: z.literal('upload'),
		file_name: z.string(),
		size: z.number().int(),
		records: z.number().int(),
		has_header: z.boolean().meta({ description: 'Whether the first row looks like a header.' }),
		suggested_mapping: z
			.record(z.string(), z.number().int())
			.meta({ description: 'Lead field to column index (0-based), as the page guesses it.' }),
		preview: z.array(z.array(z.string())).meta({ description: 'The first rows.' }),
	})
	.meta({ id: 'Upload' })

export const listOperations = [
	listsOperation('leads'),
	defineOperation({
		id: 'createUpload',
		method: 'POST',
		path: '/uploads',
		summary: 'Upload a CSV file',
		description:
			'The first step of a lead list from a file (CSV or XLSX): the file is checked and kept for a day; then create the list with `POST /lead-lists` and a column mapping.',
		tag: 'Lists',
		scope: 'lists:write',
		screen: 'file-list',
		body: z.object({ file: z.string().meta({ format: 'binary', description: 'The CSV file.' }) }),
		bodyFormat: 'stream',
		status: 201,
		response: UploadSchema,
		async handle({ account, request }) {
			const acting = actingAccount(account)
			const { upload, rejected } = await readCsvUploadRequest(request, acting.accountId)
			if (!upload) {
				const message = rejected?.message ?? 'Choose a CSV file'
				throw new ApiProblem(rejected?.status ?? 400, 'invalid_file', message, {
					errors: [{ field: 'file', code: 'invalid', message }],
				})
			}
			const head = upload.head
			const hasHeader = detectsHeader(head)
			const guessed = guessMapping(hasHeader ? head[0]! : null, head.slice(hasHeader ? 1 : 0))
			return {
				id: upload.id,
				object: 'upload' as const,
				file_name: upload.fileName,
				size: upload.size,
				records: upload.records,
				has_header: hasHeader,
				suggested_mapping: Object.fromEntries(
					LEAD_FIELD_KEYS.flatMap((key) =>
						guessed[key] === undefined ? [] : [[key, guessed[key]]],
					),
				),
				preview: head,
			}
		},
	}),
	defineOperation({
		id: 'createLeadList',
		method: 'POST',
		path: '/lead-lists',
		summary: 'Create a lead list from an upload',
		description:
			'Maps the columns of an upload (`POST /uploads`) to lead fields and starts the import, as the File list page does. Column indexes are 0-based.',
		tag: 'Lists',
		scope: 'lists:write',
		screen: 'file-list',
		// the mapping form's own schema: the same rules at the same fields
		body: MappingSchema,
		status: 201,
		response: ListSchema,
		async handle({ account, body }) {
			const { listId } = await startCsvImport(account, body, null)
			const { list } = await findLeadList(account, listId)
			return listItem('leads', {
				...list,
				source_type: list.sourceType,
				workspace_id: list.workspaceId,
				created_at: list.createdAt,
				finished_at: list.finishedAt,
			})
		},
	}),
	defineOperation({
		id: 'getLeadList',
		method: 'GET',
		path: '/lead-lists/{id}',
		summary: 'Get a lead list',
		tag: 'Lists',
		scope: 'lists:read',
		params: IdParams,
		response: ListSchema,
		async handle({ account, params }) {
			const { list } = await findLeadList(account, params.id)
			return listItem('leads', {
				...list,
				source_type: list.sourceType,
				workspace_id: list.workspaceId,
				created_at: list.createdAt,
				finished_at: list.finishedAt,
			})
		},
	}),
	defineOperation({
		id: 'deleteLeadList',
		method: 'DELETE',
		path: '/lead-lists/{id}',
		summary: 'Delete a lead list',
		description: 'Deletes the list and its leads; a running import is cancelled first.',
		tag: 'Lists',
		scope: 'lists:write',
		screen: 'file-list',
		params: IdParams,
		response: z.object({ id: z.uuid(), object: z.literal('lead_list'), deleted: z.literal(true) }),
		async handle({ account, params }) {
			const list = await deleteLeadList(account, params.id)
			return { id: list.id, object: 'lead_list' as const, deleted: true as const }
		},
	}),
	defineOperation({
		id: 'listLeads',
		method: 'GET',
		path: '/lead-lists/{id}/leads',
		summary: "List a lead list's leads",
		description: 'In the order they were added; filtered and searched as the list page is.',
		tag: 'Lists',
		scope: 'lists:read',
		params: IdParams,
		query: LeadsQuery,
		response: listOf(LeadSchema),
		async handle({ account, params, query }) {
			const after = query.starting_after ? { key: null, id: query.starting_after } : null
			// the list's check and its page in one statement
			const rows = await leadListRows(
				account,
				params.id,
				(listId) =>
					leadsPageQuery(
						listId,
						{ q: query.q ?? '', sort: 'added', dir: 'asc', status: query.verification_status },
						{ after, before: null },
						0,
						query.limit,
					),
				// a search's prefix is planned with its value
				{ prepare: !query.q },
			)
			return pageOf(
				rows,
				query.limit,
				(row) => row.id,
				({ sort_key: _, verify_status, verify_role, ...lead }) => ({
					...lead,
					verification_status: verify_status,
					role_account: verify_role,
					data: (lead.data ?? {}) as Record<string, unknown>,
				}),
			)
		},
	}),
	listsOperation('companies'),
	defineOperation({
		id: 'getCompanyList',
		method: 'GET',
		path: '/company-lists/{id}',
		summary: 'Get a company list',
		tag: 'Lists',
		scope: 'lists:read',
		params: IdParams,
		response: ListSchema,
		async handle({ account, params }) {
			const { list } = await findCompanyList(account, params.id)
			return listItem('companies', { ...list, finished_at: null })
		},
	}),
]
