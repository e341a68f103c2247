import { z } from 'zod'
import { checkStartUpload, StartUploadFields } from '../../emailbison/schemas.ts'
import {
	listUploads,
	planEmailBisonUpload,
	rejectedCsv,
	rejectedCsvName,
	startEmailBisonUpload,
	startUploadInput,
	uploadsPage,
	type UploadSummary,
} from '../../emailbison/uploads.server.ts'
import type { AccountContext } from '../../../context.server.ts'
import { notFound } from '../../../utils/http-errors.server.ts'
import { CsvAnswer, defineOperation } from '../operation.ts'
import { createdCursor, listOf, PageQuery, readCreatedCursor } from '../pagination.ts'
import { ApiProblem } from '../problem.server.ts'
import { RunIdParams, runResource } from '../run-resource.ts'

// EmailBison uploads through the upload page's service (decision 0104): the start takes the
// upload form's own fields and rules (campaign or a new one, the mapping, the verification
// choices, duplicates) on a list; its status, its report (what the uploads screen shows) and
// the history, paged. The screens offer no cancel, so neither does the API.

const STATUS = ['queued', 'running', 'done', 'failed'] as const

const EmailBisonTarget = z.object({
	workspace_id: z.string().meta({ description: 'The EmailBison workspace.' }),
	workspace_name: z.string(),
	campaign_id: z.string().nullable(),
	campaign_name: z.string(),
})

const EmailBisonUpload = z
	.object({
		id: z.uuid(),
		object: z.literal('emailbison_upload'),
		list_id: z.uuid(),
		list_name: z.string(),
		workspace_id: z.uuid().nullable().meta({ description: "The list's workspace (ours)." }),
		status: z.enum(STATUS),
		error: z.string().nullable().meta({ description: 'Why it failed, as the screen says.' }),
		progress: z.object({
			total: z.number().int().meta({ description: 'Leads it sends (after those left out).' }),
			sent: z.number().int(),
			rejected: z.number().int().meta({ description: 'Leads EmailBison refused.' }),
			percent: z.number().int().min(0).max(100),
		}),
		emailbison: EmailBisonTarget,
		created_at: z.iso.datetime(),
	})
	.meta({ id: 'EmailBisonUpload' })

const EmailBisonUploadReport = z
	.object({
		id: z.uuid(),
		object: z.literal('emailbison_upload_report'),
		status: z.enum(STATUS),
		error: z.string().nullable(),
		emailbison: EmailBisonTarget,
		uploaded: z.object({
			sent: z.number().int().meta({ description: 'Leads EmailBison took.' }),
			created: z.number().int().meta({ description: 'New leads in EmailBison.' }),
			updated: z.number().int().meta({ description: 'Leads EmailBison already had.' }),
			attached: z.number().int().meta({ description: 'Leads added to the campaign.' }),
		}),
		left_out: z.record(z.string(), z.number().int()).nullable().meta({
			description:
				'Leads left out by verification status (invalid, disposable, risky, catch_all, unknown, unverified), counted when the job starts; null before.',
		}),
		rejected: z.object({
			count: z.number().int(),
			reasons: z
				.array(z.object({ reason: z.string(), leads: z.number().int() }))
				.meta({ description: 'The most frequent reasons, in words.' }),
			sampled: z.boolean().meta({ description: 'The reasons were counted on a sample.' }),
		}),
	})
	.meta({ id: 'EmailBisonUploadReport' })

const Counts = z.record(z.string(), z.number().int())

const EmailBisonUploadPlan = z
	.object({
		object: z.literal('emailbison_upload_plan'),
		dry_run: z.literal(true),
		list_id: z.uuid(),
		emailbison: EmailBisonTarget.extend({
			campaign_id: z
				.string()
				.nullable()
				.meta({ description: 'Null for a new campaign: a dry run does not create it.' }),
		}),
		do_not_contact: z
			.number()
			.int()
			.meta({ description: "Leads left out as the account's do-not-contact entries." }),
		already_uploaded: z.number().int().meta({
			description:
				'Leads an earlier upload sent to this EmailBison workspace: left out unless `includeDuplicates`. A lead may also be do-not-contact.',
		}),
		verification: z.object({
			kept: Counts.meta({ description: 'Leads sent, by verification status.' }),
			left_out: Counts.meta({
				description: 'Leads left out by the verification choices, by status.',
			}),
			to_verify: z.number().int().meta({
				description:
					'With `unverified: "verify-first"`: leads never verified, checked before the upload; their answers decide whether they are sent.',
			}),
		}),
		to_send: z.number().int().meta({
			description: 'Leads the upload would send as things stand (plus those of `to_verify` kept).',
		}),
	})
	.meta({ id: 'EmailBisonUploadPlan' })

// the upload form's fields (and its rules together), on a list
const StartBody = StartUploadFields.omit({ intent: true })
	.extend({
		list_id: z.uuid({ error: 'Choose a list' }).meta({ description: 'A lead list.' }),
		dry_run: z.boolean().optional().meta({
			description:
				'Check it and answer what it would send (200), without creating a campaign or starting anything.',
		}),
	})
	.superRefine(checkStartUpload)
	.meta({
		description:
			'`workspace`: the EmailBison workspace id; `campaign`: one of its campaign ids or `"new"` with `newCampaign`; `map_<field>`: the list column (or `data:<key>`) for each EmailBison field; `variables`: custom variables. As on the form, `leaveCatchAll` and `leaveUnknown` absent or false keep those leads (invalid, disposable and risky are always left out); `unverified`: `upload`, `leave-out` or `verify-first` (a verification run of the list, paid as on the verify page); `includeDuplicates: "on"` also sends leads an earlier upload sent to that workspace. Do-not-contact entries are never sent.',
	})

const statusOf = (u: UploadSummary) => STATUS[u.status] ?? 'queued'

const emailBisonOf = (u: UploadSummary) => ({
	workspace_id: u.ebWorkspaceId,
	workspace_name: u.ebWorkspaceName,
	campaign_id: u.campaignId,
	campaign_name: u.campaignName,
})

function uploadItem(u: UploadSummary) {
	return {
		id: u.id,
		object: 'emailbison_upload' as const,
		list_id: u.listId,
		list_name: u.listName,
		workspace_id: u.workspaceId,
		status: statusOf(u),
		error: u.error,
		progress: {
			total: u.total,
			sent: u.sent,
			rejected: u.rejected,
			// as the screen's progress bar: sent and rejected are both done
			percent: u.total ? Math.min(100, Math.floor(((u.sent + u.rejected) / u.total) * 100)) : 100,
		},
		emailbison: emailBisonOf(u),
		created_at: u.createdAt.toISOString(),
	}
}

/** The upload as the uploads screen reads it; another account's or workspace's is a 404. */
async function findUploadSummary(account: AccountContext, id: string) {
	const [upload] = await listUploads(account, { uploadId: id })
	if (!upload) notFound('This upload')
	return upload
}

export const emailBisonUploadOperations = [
	...runResource({
		path: '/emailbison-uploads',
		noun: 'EmailBisonUpload',
		tag: 'EmailBison uploads',
		family: 'uploads',
		screen: 'emailbison-upload',
		item: EmailBisonUpload,
		find: async (account, id) => uploadItem(await findUploadSummary(account, id)),
		start: {
			summary: 'Upload a lead list to EmailBison',
			description:
				"Sends the list's leads to a campaign of the account's connected EmailBison workspace, as the upload page does: the same fields, choices and refusals, one upload per `Idempotency-Key`. The emailbison_upload.finished webhook says when it ended. `dry_run: true` checks the same and answers 200 with what it would send.",
			body: StartBody,
			run: async (account, body) =>
				(await startEmailBisonUpload(account, body.list_id, startUploadInput(body))).uploadId,
			estimate: {
				schema: EmailBisonUploadPlan,
				of: async (account, body) => {
					const plan = await planEmailBisonUpload(account, body.list_id, startUploadInput(body))
					return {
						object: 'emailbison_upload_plan',
						dry_run: true,
						list_id: plan.listId,
						emailbison: {
							workspace_id: plan.ebWorkspace.id,
							workspace_name: plan.ebWorkspace.name,
							campaign_id: plan.campaign.id,
							campaign_name: plan.campaign.name,
						},
						do_not_contact: plan.doNotContact,
						already_uploaded: plan.alreadyUploaded,
						verification: {
							kept: plan.kept,
							left_out: plan.leftOut,
							to_verify: plan.toVerify,
						},
						to_send: plan.toSend,
					}
				},
			},
		},
		get: {
			summary: 'Get an EmailBison upload',
			description: 'Its status (queued, running, done, failed) and progress.',
		},
	}),
	defineOperation({
		id: 'getEmailBisonUploadReport',
		method: 'GET',
		path: '/emailbison-uploads/{id}/report',
		summary: "Get an EmailBison upload's report",
		description:
			'What was uploaded, what was left out by verification status, and why EmailBison rejected leads: the counts the uploads screen shows.',
		tag: 'EmailBison uploads',
		scope: 'uploads:read',
		params: RunIdParams,
		response: EmailBisonUploadReport,
		async handle({ account, params }) {
			const u = await findUploadSummary(account, params.id)
			return {
				id: u.id,
				object: 'emailbison_upload_report' as const,
				status: statusOf(u),
				error: u.error,
				emailbison: emailBisonOf(u),
				uploaded: { sent: u.sent, created: u.created, updated: u.updated, attached: u.attached },
				left_out: u.leftOut,
				rejected: { count: u.rejected, reasons: u.rejectionReasons, sampled: u.reasonsSampled },
			}
		},
	}),
	defineOperation({
		id: 'getEmailBisonUploadRejected',
		method: 'GET',
		path: '/emailbison-uploads/{id}/rejected',
		summary: "Download an EmailBison upload's rejected leads",
		description:
			'The leads EmailBison refused, with the reason in words, as CSV (email, first_name, last_name, reason; formula-safe): the file the uploads screen downloads. Streamed.',
		tag: 'EmailBison uploads',
		scope: 'uploads:read',
		params: RunIdParams,
		responseFormat: 'csv',
		response: z.string().meta({ description: 'text/csv; a header line, then a lead a line.' }),
		async handle({ account, params }) {
			const u = await findUploadSummary(account, params.id)
			return new CsvAnswer(rejectedCsv(u.id), rejectedCsvName(u.campaignName))
		},
	}),
	defineOperation({
		id: 'listEmailBisonUploads',
		method: 'GET',
		path: '/emailbison-uploads',
		summary: 'List EmailBison uploads',
		description: 'Newest first, as the uploads screen: of one list, or one EmailBison workspace.',
		tag: 'EmailBison uploads',
		scope: 'uploads:read',
		query: PageQuery.extend({
			list_id: z.uuid({ error: 'Not an id' }).optional().meta({ description: 'Of this list.' }),
			emailbison_workspace_id: z
				.string()
				.regex(/^\d+$/, 'Not an EmailBison workspace id')
				.optional()
				.meta({ description: 'To this EmailBison workspace.' }),
		}),
		response: listOf(EmailBisonUpload),
		async handle({ account, query }) {
			const after = readCreatedCursor(query.starting_after)
			if (after === undefined) {
				throw new ApiProblem(400, 'invalid_cursor', 'This is not a cursor of this list.')
			}
			const page = await uploadsPage(
				account,
				{ listId: query.list_id, ebWorkspaceId: query.emailbison_workspace_id },
				{ limit: query.limit, after },
			)
			return {
				object: 'list' as const,
				data: page.uploads.map(uploadItem),
				has_more: page.more,
				next_cursor:
					page.more && page.after
						? createdCursor({ page_at: page.after.at, id: page.after.id })
						: null,
			}
		},
	}),
]
