import { sql, type Kysely } from 'kysely'
import type { z } from 'zod'
import { db } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import {
	EmailBisonError,
	type EbCampaign,
	type EbWorkspace,
} from '../../integrations/emailbison.server.ts'
import { enqueue } from '../../jobs/enqueue.server.ts'
import { FormError, isUuid, notFound } from '../../utils/http-errors.server.ts'
import { inTransaction } from '../../utils/transaction.server.ts'
import {
	alreadyUploadedSql,
	notSuppressedSql,
	uploadExclusions,
} from '../do-not-contact/match.server.ts'
import { findLeadList } from '../lists/find-list.server.ts'
import { lockListForStart } from '../lists/list-lock.server.ts'
import { actingAccount, canUseWorkspace } from '../workspaces/access.server.ts'
import { visibleNewestFirst, type NewestFirstAfter } from '../workspaces/visible-page.server.ts'
import { csvCell, LEAD_COLUMNS, type UploadMapping } from './mapping.ts'
import { describeRejection } from './rejections.ts'
import { EB_FIELDS, type EbField, type StartUploadFields } from './schemas.ts'
import { loadEmailBisonAccess, NOT_CONFIGURED, type EmailBisonAccess } from './settings.server.ts'
import {
	leavesOut,
	startVerifyFirst,
	STATUS_VARIABLE,
	verifyChoiceOf,
	type VerifyChoiceInput,
} from './verify-choice.server.ts'
import { inEbWorkspace, superAdminClient } from './workspace-client.server.ts'

function friendly(error: unknown): never {
	if (error instanceof EmailBisonError) {
		if (error.kind === 'key')
			throw new FormError('EmailBison refused the API key: check the super-admin key in Settings.')
		throw new FormError(error.message)
	}
	throw error
}

async function requireAccess(accountId: string): Promise<EmailBisonAccess> {
	const access = await loadEmailBisonAccess(accountId)
	if (!access) throw new FormError(NOT_CONFIGURED)
	return access
}

/** Every EmailBison workspace (all pages), through the super-admin key. */
export async function listEbWorkspaces(accountId: string): Promise<EbWorkspace[]> {
	const access = await requireAccess(accountId)
	return superAdminClient(access).listWorkspaces().catch(friendly)
}

/** The campaigns of one EmailBison workspace, read with that workspace's key. */
export async function listEbCampaigns(accountId: string, ebWorkspaceId: number) {
	const access = await requireAccess(accountId)
	return inEbWorkspace(access, ebWorkspaceId, (client) => client.listCampaigns()).catch(friendly)
}

/** Enrichment output keys of a list (sampled from its first leads). */
export async function listDataKeys(listId: string) {
	const { rows } = await sql<{ key: string }>`
		select distinct jsonb_object_keys(data) as key
		from (select data from leads where list_id = ${listId} and jsonb_typeof(data) = 'object' limit 2000) l
		order by 1 limit 100
	`.execute(db)
	return rows.map((r) => r.key)
}

export type StartUploadInput = {
	workspace: number
	campaign: string
	newCampaign?: string
	fields: Partial<Record<EbField, string>>
	variables: { source: string; name: string }[]
	/** send leads an earlier upload already sent to this EmailBison workspace (default: left out) */
	includeDuplicates?: boolean
} & VerifyChoiceInput

/** The upload form's values (the screen's and the API's) as the service's input. */
export function startUploadInput(
	value: Omit<z.output<typeof StartUploadFields>, 'intent'>,
): StartUploadInput {
	return {
		workspace: value.workspace,
		campaign: value.campaign,
		newCampaign: value.newCampaign,
		fields: {
			email: value.map_email,
			first_name: value.map_first_name,
			last_name: value.map_last_name,
			title: value.map_title,
			company: value.map_company,
			notes: value.map_notes,
		},
		variables: (value.variables ?? []).map((v) => ({ source: v.source, name: v.name ?? '' })),
		includeDuplicates: value.includeDuplicates === 'on',
		// the form's checkboxes: absent is unchecked, so kept
		leaveOut: { catchAll: value.leaveCatchAll === true, unknown: value.leaveUnknown === true },
		unverified: value.unverified,
	}
}

/**
 * The leads (`l`) of a list an upload takes: those with an email, less do-not-contact entries
 * and, unless asked, leads an earlier upload (not `exceptUploadId`) sent to the EmailBison
 * workspace. The start's snapshot and the dry run's counts, from this one condition.
 */
function uploadedLeads(
	accountId: string,
	list: { id: string; workspaceId: string | null },
	ebWorkspaceId: string,
	input: Pick<StartUploadInput, 'includeDuplicates'>,
	exceptUploadId?: string,
) {
	const email = sql.ref('l.email')
	return sql<boolean>`l.list_id = ${list.id} and coalesce(trim(l.email), '') <> ''
		and ${notSuppressedSql(accountId, email, list.workspaceId)}
		${input.includeDuplicates ? sql`` : sql`and not ${alreadyUploadedSql(accountId, ebWorkspaceId, email, exceptUploadId)}`}`
}

/**
 * What a start checks before it writes anything, and a dry run the same way: the list has
 * leads with emails, the mapping names its columns, the EmailBison workspace exists and the
 * campaign belongs to it. A start creates the new campaign here; a plan only names it.
 */
async function checkUpload(
	context: AccountContext | null,
	listId: string,
	input: StartUploadInput,
	mode: 'start' | 'plan',
) {
	const { account, list } = await findLeadList(context, listId)
	const access = await requireAccess(account.accountId)
	// one lead with an email is enough to go on: not a count of a list that may hold millions
	const withEmail = await db
		.selectFrom('leads')
		.select('id')
		.where('list_id', '=', list.id)
		.where(sql<boolean>`coalesce(trim(email), '') <> ''`)
		.limit(1)
		.executeTakeFirst()
	if (!withEmail)
		throw new FormError('This list has no leads with an email address: there is nothing to upload.')

	const dataKeys = await listDataKeys(list.id)
	const allowed = new Set<string>([
		...LEAD_COLUMNS.map(([c]) => c),
		...dataKeys.map((k) => `data:${k}`),
	])
	const fields: Partial<Record<EbField, string>> = {}
	for (const field of EB_FIELDS) {
		const source = input.fields[field]
		if (!source) continue
		if (!allowed.has(source)) throw new FormError('Choose a column of this list', `map_${field}`)
		fields[field] = source
	}
	if (!fields.email) throw new FormError('Choose the column with emails', 'map_email')
	const variables = input.variables.filter((v) => v.name)
	const names = new Set<string>()
	for (const v of variables) {
		if (!allowed.has(v.source)) throw new FormError(`Unknown column ${v.source}`)
		if (names.has(v.name)) throw new FormError(`The custom variable ${v.name} is used twice`)
		names.add(v.name)
	}
	const workspaces = await superAdminClient(access).listWorkspaces().catch(friendly)
	const ebWorkspace = workspaces.find((w) => w.id === input.workspace)
	if (!ebWorkspace) throw new FormError('That EmailBison workspace does not exist', 'workspace')

	const campaign: { id: number | null; name: string } | null =
		mode === 'plan' && input.campaign === 'new'
			? { id: null, name: input.newCampaign! }
			: await inEbWorkspace(access, ebWorkspace.id, async (client) => {
					if (input.campaign === 'new') return client.createCampaign(input.newCampaign!)
					const campaigns: EbCampaign[] = await client.listCampaigns()
					return campaigns.find((c) => String(c.id) === input.campaign) ?? null
				}).catch(friendly)
	if (!campaign)
		throw new FormError(
			`That campaign is not in the EmailBison workspace ${ebWorkspace.name}. Choose one of its campaigns.`,
			'campaign',
		)
	return { account, list, fields, variables, names, ebWorkspace, campaign }
}

/**
 * Confirms an upload: checks it (`checkUpload`, which creates a new campaign), then writes the
 * upload row, snapshots the list's leads into it and queues the job, in one transaction.
 */
export async function startEmailBisonUpload(
	context: AccountContext | null,
	listId: string,
	input: StartUploadInput,
	executor: Kysely<DB> = db,
) {
	const { account, list, fields, variables, names, ebWorkspace, campaign } = await checkUpload(
		context,
		listId,
		input,
		'start',
	)
	// the verification status goes as a custom variable when the list has been verified
	const verified = await db
		.selectFrom('leads')
		.select('id')
		.where('list_id', '=', list.id)
		.where('verify_status', 'is not', null)
		.limit(1)
		.executeTakeFirst()
	if ((verified || input.unverified === 'verify-first') && !names.has(STATUS_VARIABLE))
		variables.push({ source: 'verify_status', name: STATUS_VARIABLE })
	const mapping: UploadMapping = { fields, variables }
	return inTransaction(executor, async (trx) => {
		// a delete of the list waits for this upload, or went first: the list's 404 (0107); the
		// verification's strength at once when it starts one (no upgrade to deadlock on)
		await lockListForStart(
			trx,
			'leads',
			list.id,
			input.unverified === 'verify-first' ? 'update' : 'key share',
		)
		const verifyRunId =
			input.unverified === 'verify-first' ? await startVerifyFirst(context, list.id, trx) : null
		const upload = await trx
			.insertInto('emailbison_upload')
			.values({
				list_id: list.id,
				user_id: account.accountId,
				workspace_id: list.workspaceId,
				eb_workspace_id: String(ebWorkspace.id),
				eb_workspace_name: ebWorkspace.name,
				campaign_id: String(campaign.id),
				campaign_name: campaign.name,
				mapping: JSON.stringify(mapping),
				verify_choice: JSON.stringify(verifyChoiceOf(input)),
				verify_run_id: verifyRunId,
			})
			.returning('id')
			.executeTakeFirstOrThrow()
		const { rows } = await sql<{ n: number }>`
			with inserted as (
				insert into emailbison_upload_leads (upload_id, lead_id, email)
				select ${upload.id}::uuid, l.id, l.email from leads l
				where ${uploadedLeads(account.accountId, list, String(ebWorkspace.id), input, upload.id)}
				returning 1
			)
			select count(*)::int as n from inserted
		`.execute(trx)
		await trx
			.updateTable('emailbison_upload')
			.set({ total: rows[0]!.n })
			.where('id', '=', upload.id)
			.execute()
		await enqueue('emailbison-upload', { uploadId: upload.id }, { db: trx })
		return { uploadId: upload.id, total: rows[0]!.n }
	})
}

/**
 * An upload checked as a start checks it, and counted as its job would send it, with nothing
 * written and no campaign created (the API's dry run): the leads left out as do-not-contact
 * and as already in the EmailBison workspace (the upload page's counts), then the rest by
 * verification status, kept or left out by the choice. With "verify first" the unverified
 * are `toVerify`: their verification decides.
 */
export async function planEmailBisonUpload(
	context: AccountContext | null,
	listId: string,
	input: StartUploadInput,
) {
	const { account, list, ebWorkspace, campaign } = await checkUpload(context, listId, input, 'plan')
	const ebWorkspaceId = String(ebWorkspace.id)
	const [exclusions, { rows }] = await Promise.all([
		uploadExclusions(account.accountId, list.id, list.workspaceId, ebWorkspaceId),
		// the leads the start would snapshot, counted per status
		sql<{ status: string; n: number }>`
			select coalesce(l.verify_status, 'unverified') as status, count(*)::int as n
			from leads l
			where ${uploadedLeads(account.accountId, list, ebWorkspaceId, input)}
			group by 1
			order by 1`.execute(db),
	])
	const choice = verifyChoiceOf(input)
	const kept: Record<string, number> = {}
	const leftOut: Record<string, number> = {}
	let toSend = 0
	let toVerify = 0
	for (const { status, n } of rows) {
		if (status === 'unverified' && choice.unverified === 'verify-first') toVerify += n
		else if (leavesOut(choice, status)) leftOut[status] = n
		else {
			kept[status] = n
			toSend += n
		}
	}
	return {
		listId: list.id,
		ebWorkspace: { id: ebWorkspaceId, name: ebWorkspace.name },
		campaign: { id: campaign.id === null ? null : String(campaign.id), name: campaign.name },
		doNotContact: exclusions.suppressed,
		alreadyUploaded: exclusions.duplicates,
		includeDuplicates: input.includeDuplicates === true,
		kept,
		leftOut,
		toVerify,
		toSend,
	}
}

export type UploadSummary = {
	id: string
	listId: string
	listName: string
	workspaceId: string | null
	ebWorkspaceId: string
	ebWorkspaceName: string
	campaignId: string | null
	campaignName: string
	status: number
	total: number
	sent: number
	created: number
	updated: number
	rejected: number
	attached: number
	error: string | null
	/** leads left out by their verification status, per status (null: none chosen) */
	leftOut: Record<string, number> | null
	/** why leads were rejected, in the user's words, most frequent first (from a sample) */
	rejectionReasons: { reason: string; leads: number }[]
	/** the reasons' counts are of a sample of the rejected leads, not all of them */
	reasonsSampled: boolean
	createdAt: Date
}

/** Rejected rows read per upload to say why (the reasons repeat: a sample tells them). */
const REASON_SAMPLE = 500

/** The most frequent rejection reasons of these uploads, translated, from a bounded sample. */
async function rejectionReasons(uploadIds: string[]) {
	const byUpload = new Map<string, { reason: string; leads: number }[]>()
	if (uploadIds.length === 0) return byUpload
	const { rows } = await sql<{ id: string; reason: string }>`
		select u.id, s.reason from unnest(${uploadIds}::uuid[]) as u(id)
		cross join lateral (
			select rejected_reason as reason from emailbison_upload_leads
			where upload_id = u.id and rejected_reason is not null
			limit ${REASON_SAMPLE}
		) s
	`.execute(db)
	const counts = new Map<string, Map<string, number>>()
	for (const row of rows) {
		const reason = describeRejection(row.reason)
		const of = counts.get(row.id) ?? new Map<string, number>()
		of.set(reason, (of.get(reason) ?? 0) + 1)
		counts.set(row.id, of)
	}
	for (const [id, of] of counts)
		byUpload.set(
			id,
			[...of]
				.sort((a, b) => b[1] - a[1])
				.slice(0, 3)
				.map(([reason, leads]) => ({ reason, leads })),
		)
	return byUpload
}

export type UploadFilter = {
	listId?: string
	workspaceId?: string
	ebWorkspaceId?: string
	/** one upload (the API's read by id) */
	uploadId?: string
}

/**
 * Upload history of the account in the workspaces this user may use: optionally of one
 * list, one of our workspaces or one EmailBison workspace.
 */
export async function listUploads(
	context: AccountContext | null,
	filter: UploadFilter = {},
): Promise<UploadSummary[]> {
	return (await uploadsPage(context, filter, { limit: 200, after: null })).uploads
}

/**
 * A page of that history, newest first, keyset on (created_at, id): the screen reads its
 * first 200, the API pages through all (`more`: there is a next page after the last).
 */
export async function uploadsPage(
	context: AccountContext | null,
	filter: UploadFilter,
	page: { limit: number; after: NewestFirstAfter },
) {
	const account = actingAccount(context)
	// the workspace rule in SQL (visibleNewestFirst): a page holds `limit` visible uploads
	const visible = visibleNewestFirst(
		db
			.selectFrom('emailbison_upload')
			.selectAll()
			.$if(Boolean(filter.listId), (q) => q.where('list_id', '=', filter.listId!))
			.$if(Boolean(filter.workspaceId), (q) => q.where('workspace_id', '=', filter.workspaceId!))
			.$if(Boolean(filter.ebWorkspaceId), (q) =>
				q.where('eb_workspace_id', '=', filter.ebWorkspaceId!),
			)
			.$if(Boolean(filter.uploadId), (q) => q.where('id', '=', filter.uploadId!)),
		account,
		page,
	)
	const fetched = await db
		.selectFrom(visible.as('u'))
		.innerJoin('processing_list as l', 'l.id', 'u.list_id')
		.select([
			'u.id',
			'u.list_id',
			'l.name as list_name',
			'u.workspace_id',
			'u.eb_workspace_id',
			'u.eb_workspace_name',
			'u.campaign_id',
			'u.campaign_name',
			'u.status',
			'u.total',
			'u.sent',
			'u.created',
			'u.updated',
			'u.rejected',
			'u.attached',
			'u.error',
			'u.left_out',
			'u.created_at',
			'u.page_at',
		])
		.orderBy('u.created_at', 'desc')
		.orderBy('u.id', 'desc')
		.execute()
	const rows = fetched.slice(0, page.limit)
	// finished uploads with rejected leads say why
	const reasons = await rejectionReasons(
		rows.filter((r) => r.rejected > 0 && r.status >= 2).map((r) => r.id),
	)
	const uploads: UploadSummary[] = rows.map((r) => ({
		id: r.id,
		listId: r.list_id,
		listName: r.list_name,
		workspaceId: r.workspace_id,
		ebWorkspaceId: r.eb_workspace_id,
		ebWorkspaceName: r.eb_workspace_name,
		campaignId: r.campaign_id,
		campaignName: r.campaign_name,
		status: r.status,
		total: r.total,
		sent: r.sent,
		created: r.created,
		updated: r.updated,
		rejected: r.rejected,
		attached: r.attached,
		error: r.error,
		leftOut: (r.left_out as Record<string, number> | null) ?? null,
		rejectionReasons: reasons.get(r.id) ?? [],
		reasonsSampled: r.rejected > REASON_SAMPLE,
		createdAt: r.created_at,
	}))
	// the next page starts after the last row's place (to the microsecond)
	const last = rows.at(-1)
	return {
		uploads,
		more: fetched.length > page.limit,
		after: last ? { at: last.page_at, id: last.id } : null,
	}
}

/** One upload of the account in a workspace this user may use; else a 404. */
export async function findUpload(context: AccountContext | null, uploadId: unknown) {
	const account = actingAccount(context)
	if (!isUuid(uploadId)) notFound('This upload')
	const row = await db
		.selectFrom('emailbison_upload')
		.select(['id', 'list_id', 'workspace_id', 'campaign_name'])
		.where('id', '=', uploadId)
		.where('user_id', '=', account.accountId)
		.executeTakeFirst()
	if (!row || !canUseWorkspace(account, row.workspace_id)) notFound('This upload')
	return row
}

/** The rejected rows' file name, after the campaign. */
export const rejectedCsvName = (campaignName: string) =>
	`rejected-${campaignName.replace(/[^\w.-]+/g, '-') || 'upload'}.csv`

/** The rejected rows of an upload as CSV lines (formula-safe), streamed in pages. */
export async function* rejectedCsv(uploadId: string) {
	yield 'email,first_name,last_name,reason\r\n'
	let after = '00000000-0000-0000-0000-000000000000'
	for (;;) {
		const rows = await db
			.selectFrom('emailbison_upload_leads as u')
			.leftJoin('leads as l', 'l.id', 'u.lead_id')
			.select(['u.lead_id', 'u.email', 'l.first_name', 'l.last_name', 'u.rejected_reason'])
			.where('u.upload_id', '=', uploadId)
			.where('u.rejected_reason', 'is not', null)
			.where('u.lead_id', '>', after)
			.orderBy('u.lead_id')
			.limit(1000)
			.execute()
		if (rows.length === 0) return
		yield rows
			.map(
				(r) =>
					[r.email, r.first_name, r.last_name, describeRejection(r.rejected_reason)]
						.map(csvCell)
						.join(',') + '\r\n',
			)
			.join('')
		after = rows[rows.length - 1]!.lead_id
	}
}
