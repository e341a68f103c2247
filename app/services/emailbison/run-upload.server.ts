import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import {
	EMAILBISON_BATCH_LIMIT,
	EmailBisonError,
	type EbLeadJson,
	type EbLeadResult,
	type EmailBisonClient,
} from '../../integrations/emailbison.server.ts'
import { RATE_LIMIT_RESCHEDULES, type JobContext } from '../../jobs/define.server.ts'
import { endedJob, quietFor, whyEnded, withoutLiveJob } from '../../jobs/ended.server.ts'
import { getConfig } from '../../config.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { inTransaction } from '../../utils/transaction.server.ts'
import { notifyJobEnd } from '../notifications/record.server.ts'
import { sleep } from '../../utils/patience.server.ts'
import { emailBisonLeadJson, type LeadRow, type UploadMapping } from './mapping.ts'
import { loadEmailBisonAccess, NOT_CONFIGURED } from './settings.server.ts'
import { applyVerifyChoice } from './verify-choice.server.ts'
import { inEbWorkspace, type ClientOptions } from './workspace-client.server.ts'

export const UploadStatus = { pending: 0, processing: 1, success: 2, fail: 3 } as const
export const UPLOAD_RETRY_LIMIT = 5

/** Test and bench knobs: how long to wait when EmailBison gives no Retry-After. */
export const backoff = { baseMs: 1000, maxMs: 30_000, tries: 6 }

type Upload = {
	id: string
	user_id: string
	list_id: string
	eb_workspace_id: string
	campaign_id: string | null
	status: number
	attach_unsure: boolean
	mapping: UploadMapping
}

class UploadFailure extends Error {}

/**
 * Calls EmailBison, waiting out 429 (Retry-After honoured) and 5xx with backoff; the job's
 * own retries take over after that. Only for idempotent calls (upserts by email, attaches).
 */
async function withBackoff<T>(call: () => Promise<T>, signal: AbortSignal): Promise<T> {
	for (let attempt = 1; ; attempt++) {
		try {
			return await call()
		} catch (error) {
			if (
				!(error instanceof EmailBisonError) ||
				!error.retryable ||
				attempt >= backoff.tries ||
				signal.aborted
			)
				throw error
			const wait =
				error.retryAfterSeconds !== undefined
					? error.retryAfterSeconds * 1000
					: Math.min(backoff.maxMs, backoff.baseMs * 2 ** (attempt - 1))
			await sleep(wait, signal)
		}
	}
}

async function loadUpload(uploadId: string): Promise<Upload | undefined> {
	const row = await db
		.selectFrom('emailbison_upload')
		.select([
			'id',
			'user_id',
			'list_id',
			'eb_workspace_id',
			'campaign_id',
			'status',
			'attach_unsure',
			'mapping',
		])
		.where('id', '=', uploadId)
		.executeTakeFirst()
	return row ? { ...row, mapping: row.mapping as UploadMapping } : undefined
}

async function ensureCustomVariables(
	client: EmailBisonClient,
	upload: Upload,
	signal: AbortSignal,
) {
	const wanted = [...new Set(upload.mapping.variables.map((v) => v.name))]
	if (wanted.length === 0) return
	const existing = new Set(await withBackoff(() => client.listCustomVariables(), signal))
	for (const name of wanted) {
		if (existing.has(name)) continue
		try {
			await withBackoff(() => client.createCustomVariable(name), signal)
		} catch (error) {
			// made meanwhile (another upload): fine
			if (!(error instanceof EmailBisonError && error.kind === 'invalid')) throw error
		}
	}
}

type Pending = LeadRow & { lead_id: string }

type Accepted = { lead_id: string; eb_lead_id: string }

type Prepared = { batch: Pending[]; bodies: EbLeadJson[] }

/**
 * The next leads to send after `after` (keyset: no rescan of the ones already done) and
 * their EmailBison payloads, made while the previous batch's calls are in flight.
 */
async function prepareBatch(upload: Upload, after: string): Promise<Prepared> {
	const batch = await nextBatch(upload.id, after)
	return { batch, bodies: batch.map((lead) => emailBisonLeadJson(lead, upload.mapping)) }
}

async function nextBatch(uploadId: string, after: string): Promise<Pending[]> {
	const rows = await db
		.selectFrom('emailbison_upload_leads as u')
		.innerJoin('leads as l', 'l.id', 'u.lead_id')
		.select([
			'u.lead_id',
			'l.email',
			'l.first_name',
			'l.last_name',
			'l.title',
			'l.company_name',
			'l.company_domain',
			'l.linkedin_url',
			'l.location',
			'l.phone',
			'l.email_status',
			'l.verify_status',
			'l.data',
		])
		.where('u.upload_id', '=', uploadId)
		.where('u.eb_lead_id', 'is', null)
		.where('u.rejected_reason', 'is', null)
		.where('u.lead_id', '>', after)
		.orderBy('u.lead_id')
		.limit(EMAILBISON_BATCH_LIMIT)
		.execute()
	return rows as Pending[]
}

/**
 * Upserts one batch; rows EmailBison names in a 422 are dropped with their reasons and
 * the rest sent again. A 422 that names no row is split in halves until the refused rows
 * are found: one bad email never fails the 499 good ones beside it.
 */
async function upsertBatch(client: EmailBisonClient, prepared: Prepared, signal: AbortSignal) {
	const rejected = new Map<string, string>()
	const results: EbLeadResult[] = []
	const sent: Pending[] = []
	const send = async (rows: Pending[], bodies: EbLeadJson[]): Promise<void> => {
		let rest = rows
		let restBodies = bodies
		for (;;) {
			if (rest.length === 0) return
			try {
				const answer = await withBackoff(() => client.upsertLeads(restBodies), signal)
				results.push(...answer)
				sent.push(...rest)
				return
			} catch (error) {
				if (!(error instanceof EmailBisonError) || error.kind !== 'invalid') throw error
				const named = [...error.rowErrors.keys()].filter((i) => i >= 0 && i < rest.length)
				if (named.length === 0) {
					if (rest.length === 1) {
						rejected.set(rest[0]!.lead_id, error.message)
						return
					}
					const half = Math.ceil(rest.length / 2)
					await send(rest.slice(0, half), restBodies.slice(0, half))
					await send(rest.slice(half), restBodies.slice(half))
					return
				}
				for (const index of named)
					rejected.set(rest[index]!.lead_id, error.rowErrors.get(index)!.join(' '))
				const keep = rest.flatMap((lead, i) =>
					rejected.has(lead.lead_id) ? [] : [[lead, restBodies[i]!] as const],
				)
				rest = keep.map(([lead]) => lead)
				restBodies = keep.map(([, body]) => body)
			}
		}
	}
	await send(prepared.batch, prepared.bodies)
	return { results, sent, rejected }
}

/**
 * Writes a batch's outcome and the checkpoint in one statement (atomic, one round trip),
 * which also marks the attach of the accepted leads as about to be made (`attach_unsure`,
 * cleared by markAttached): one commit between the upsert and the attach. Returns the
 * accepted leads.
 */
async function saveBatch(upload: Upload, outcome: Awaited<ReturnType<typeof upsertBatch>>) {
	const byEmail = new Map<string, EbLeadResult>()
	for (const result of outcome.results) byEmail.set(String(result.email).toLowerCase(), result)
	const accepted: Accepted[] = []
	const rejected = new Map(outcome.rejected)
	let created = 0
	let updated = 0
	outcome.sent.forEach((lead, index) => {
		const email = String(lead.email).toLowerCase()
		const result = byEmail.get(email) ?? outcome.results[index]
		if (!result?.id || String(result.email).toLowerCase() !== email) {
			rejected.set(lead.lead_id, 'EmailBison did not return this lead (it may skip this address).')
			return
		}
		accepted.push({ lead_id: lead.lead_id, eb_lead_id: String(result.id) })
		if (result.created_at && result.updated_at && result.created_at !== result.updated_at) updated++
		else created++
	})
	// accepted leads get their EmailBison id, rejected ones their reason, in the same statement
	const leadIds = accepted.map((a) => a.lead_id).concat([...rejected.keys()])
	const ebIds = accepted.map((a) => a.eb_lead_id as string | null)
	const reasons = accepted.map(() => null as string | null).concat([...rejected.values()])
	for (let i = accepted.length; i < leadIds.length; i++) ebIds.push(null)
	await sql`
		with outcome as (
			update emailbison_upload_leads u
			set eb_lead_id = v.eb_lead_id, rejected_reason = v.reason
			from unnest(${leadIds}::uuid[], ${ebIds}::text[], ${reasons}::text[])
				as v(lead_id, eb_lead_id, reason)
			where u.upload_id = ${upload.id} and u.lead_id = v.lead_id
		)
		update emailbison_upload set
			sent = sent + ${accepted.length}, created = created + ${created},
			updated = updated + ${updated}, rejected = rejected + ${rejected.size},
			last_batch = last_batch + 1,
			attach_unsure = attach_unsure or ${accepted.length > 0}, updated_at = now()
		where id = ${upload.id}
	`.execute(db)
	if (accepted.length) upload.attach_unsure = true
	return accepted
}

/**
 * Leads already in the campaign, as EmailBison tells it: after an attach whose answer never
 * came (the worker died, the connection broke, a 5xx after the work), the only way to know
 * whether it landed.
 */
async function campaignLeadIds(
	client: EmailBisonClient,
	upload: Upload,
	signal: AbortSignal,
	afterSync = true,
) {
	// an attach to an active campaign shows in it up to the sync delay later: wait it out
	// before reading, else the leads of a lost attach look missing and are sent again
	if (afterSync && (await syncDelayed(client, upload, signal))) {
		await sleep(getConfig().EMAILBISON_SYNC_DELAY_SECONDS * 1000, signal)
		if (signal.aborted) throw new Error('worker stopping')
	}
	const ids = await withBackoff(
		() => client.listCampaignLeadIds(Number(upload.campaign_id)),
		signal,
	)
	return new Set(ids.map(String))
}

/**
 * A previous run marked an attach in flight and never checkpointed it: mark every upserted
 * lead the campaign already has as attached, so only the others are sent again.
 */
async function reconcileAttached(client: EmailBisonClient, upload: Upload, signal: AbortSignal) {
	const inCampaign = [...(await campaignLeadIds(client, upload, signal))]
	await db.transaction().execute(async (trx) => {
		const { rows } = await sql<{ n: number }>`
			with marked as (
				update emailbison_upload_leads set attached = true
				where upload_id = ${upload.id} and not attached and eb_lead_id = any(${inCampaign}::text[])
				returning 1
			)
			select count(*)::int as n from marked
		`.execute(trx)
		await trx
			.updateTable('emailbison_upload')
			.set({
				attached: sql`attached + ${rows[0]?.n ?? 0}`,
				attach_unsure: false,
				updated_at: sql`now()`,
			})
			.where('id', '=', upload.id)
			.execute()
	})
	upload.attach_unsure = false
}

/**
 * One attach-leads call for `leadIds`, waiting out 429 and 5xx like withBackoff; after a
 * failure that may have landed (not a 429), asks the campaign first and sends only the
 * leads it does not have yet. Returns the leads EmailBison said it added none of (422 "No
 * leads were added": in sequence elsewhere, bounced or unsubscribed).
 */
async function attachOnce(
	client: EmailBisonClient,
	upload: Upload,
	leadIds: string[],
	signal: AbortSignal,
): Promise<string[]> {
	let rest = leadIds
	for (let attempt = 1; ; attempt++) {
		try {
			await client.attachLeads(Number(upload.campaign_id), rest.map(Number))
			return []
		} catch (error) {
			if (error instanceof EmailBisonError && error.kind === 'skipped') return rest
			if (error instanceof EmailBisonError && error.kind === 'not-found')
				throw new UploadFailure(
					'The campaign is not in this EmailBison workspace (was it deleted?). Choose another campaign.',
				)
			if (
				!(error instanceof EmailBisonError) ||
				!error.retryable ||
				attempt >= backoff.tries ||
				signal.aborted
			)
				throw error
			await sleep(
				error.retryAfterSeconds !== undefined
					? error.retryAfterSeconds * 1000
					: Math.min(backoff.maxMs, backoff.baseMs * 2 ** (attempt - 1)),
				signal,
			)
			if (error.kind === 'rate-limited') continue
			const inCampaign = await campaignLeadIds(client, upload, signal)
			rest = rest.filter((id) => !inCampaign.has(id))
			if (rest.length === 0) return []
		}
	}
}

/** What a user reads for a lead EmailBison did not put in the campaign. */
export const SKIPPED_REASON =
	'EmailBison did not add this lead to the campaign: it is in sequence in another campaign (parallel sending is off), bounced before, or unsubscribed.'

/**
 * Leads EmailBison left out of the campaign: not attached, counted rejected (not sent) with
 * the reason, so the upload never reports more in the campaign than are there.
 */
async function markSkipped(upload: Upload, ebLeadIds: string[], wereCounted = false) {
	if (ebLeadIds.length === 0) return
	await sql`
		with skipped as (
			update emailbison_upload_leads
			set attached = false, rejected_reason = ${SKIPPED_REASON}
			where upload_id = ${upload.id} and eb_lead_id = any(${ebLeadIds}::text[])
				and rejected_reason is null
			returning 1
		), counts as (select count(*)::int as n from skipped)
		update emailbison_upload set
			sent = sent - counts.n, rejected = rejected + counts.n,
			attached = attached - ${wereCounted ? sql`counts.n` : sql`0`}, updated_at = now()
		from counts
		where id = ${upload.id}
	`.execute(db)
}

/** Whether attaches to this campaign show in it only after EmailBison's sync delay. */
async function syncDelayed(client: EmailBisonClient, upload: Upload, signal: AbortSignal) {
	const campaign = await withBackoff(() => client.getCampaign(Number(upload.campaign_id)), signal)
	// only a draft is known to list its leads at once ("active" ones sync within 5 minutes)
	return !/^draft$/i.test(campaign.status ?? '')
}

/**
 * Checks what the attaches really added (a 2xx attach skips leads in sequence elsewhere):
 * once the campaign's sync delay has passed, every lead counted attached but not in the
 * campaign is marked skipped, and the counts say so.
 */
async function verifyAttached(client: EmailBisonClient, upload: Upload, signal: AbortSignal) {
	if (await syncDelayed(client, upload, signal)) {
		const { rows } = await sql<{ waited: number }>`
			select extract(epoch from now() - updated_at)::float8 as waited
			from emailbison_upload where id = ${upload.id}
		`.execute(db)
		const wait = getConfig().EMAILBISON_SYNC_DELAY_SECONDS - (rows[0]?.waited ?? 0)
		if (wait > 0) await sleep(wait * 1000, signal)
		if (signal.aborted) throw new Error('worker stopping')
	}
	const inCampaign = [...(await campaignLeadIds(client, upload, signal, false))]
	const { rows } = await sql<{ eb_lead_id: string }>`
		select eb_lead_id from emailbison_upload_leads
		where upload_id = ${upload.id} and attached and eb_lead_id is not null
			and not (eb_lead_id = any(${inCampaign}::text[]))
	`.execute(db)
	await markSkipped(
		upload,
		rows.map((r) => r.eb_lead_id),
		true,
	)
}

/**
 * Attaches upserted leads not yet in the campaign, 500 at a time. Before each call the
 * upload is marked unsure (committed, durably), and the checkpoint clears it: a run that
 * finds the mark reconciles with the campaign instead of attaching the same leads twice.
 */
async function attachPending(client: EmailBisonClient, upload: Upload, signal: AbortSignal) {
	if (upload.attach_unsure) await reconcileAttached(client, upload, signal)
	for (;;) {
		const rows = await db
			.selectFrom('emailbison_upload_leads')
			.select(['lead_id', 'eb_lead_id'])
			.where('upload_id', '=', upload.id)
			.where('eb_lead_id', 'is not', null)
			.where('attached', '=', false)
			.where('rejected_reason', 'is', null)
			.orderBy('lead_id')
			.limit(EMAILBISON_BATCH_LIMIT)
			.execute()
		if (rows.length === 0) return
		await db
			.updateTable('emailbison_upload')
			.set({ attach_unsure: true })
			.where('id', '=', upload.id)
			.execute()
		upload.attach_unsure = true
		const skipped = new Set(
			await attachOnce(
				client,
				upload,
				rows.map((r) => r.eb_lead_id!),
				signal,
			),
		)
		await markSkipped(upload, [...skipped])
		await markAttached(
			upload,
			rows.filter((r) => !skipped.has(r.eb_lead_id!)).map((r) => r.lead_id),
		)
	}
}

/**
 * The attach checkpoint, one statement: these leads are in the campaign, and (unless
 * `keepMark`: the next batch's attach may already be marked) no attach is in flight.
 */
async function markAttached(upload: Upload, leadIds: string[], options = { keepMark: false }) {
	await sql`
		with marked as (
			update emailbison_upload_leads set attached = true
			where upload_id = ${upload.id} and lead_id = any(${leadIds}::uuid[])
		)
		update emailbison_upload set
			attached = attached + ${leadIds.length},
			attach_unsure = attach_unsure and ${options.keepMark}, updated_at = now()
		where id = ${upload.id}
	`.execute(db)
	if (!options.keepMark) upload.attach_unsure = false
}

/**
 * The batches, the calls one at a time in the order upsert 1, upsert 2, attach 1, upsert 3,
 * attach 2, ..., and every database step while a call is in flight: the next batch is read
 * and its payloads built during an upsert, a batch's checkpoint (its EmailBison ids and the
 * attach mark) is written during the call after its upsert, and an attach's checkpoint
 * during the next upsert. A batch is attached only once its checkpoint has committed, so the
 * leads an attach names always have their EmailBison ids on record; the attach mark stays
 * set until every attach checkpoint has committed, so a run that stops anywhere in between
 * reconciles with the campaign (decision 0027) instead of attaching anything twice.
 */
async function uploadBatches(client: EmailBisonClient, upload: Upload, signal: AbortSignal) {
	const settled = <T>(promise: Promise<T>) => {
		// awaited later; until then a failure must not count as unhandled
		promise.catch(() => {})
		return promise
	}
	// the database work of one call starts once the next call is on the wire (setImmediate runs
	// after the request's write), so none of it sits between an answer and the next call
	const afterTheCallIsSent = <T>(work: () => Promise<T>) =>
		settled(new Promise<void>((resolve) => setImmediate(resolve)).then(work))
	let next = settled(prepareBatch(upload, '00000000-0000-0000-0000-000000000000'))
	// the previous batch: upserted, its checkpoint committing, its attach still to make
	let waiting: Promise<Accepted[]> | null = null
	const attachCheckpoints: Promise<void>[] = []
	const attach = async (accepted: Accepted[]) => {
		if (accepted.length === 0) return
		const skipped = new Set(
			await attachOnce(
				client,
				upload,
				accepted.map((a) => a.eb_lead_id),
				signal,
			),
		)
		attachCheckpoints.push(
			settled(
				markSkipped(upload, [...skipped]).then(() =>
					markAttached(
						upload,
						accepted.filter((a) => !skipped.has(a.eb_lead_id)).map((a) => a.lead_id),
						{ keepMark: true },
					),
				),
			),
		)
	}
	try {
		for (;;) {
			if (signal.aborted) throw new Error('worker stopping')
			const prepared = await next
			if (prepared.batch.length === 0) break
			const after = prepared.batch.at(-1)!.lead_id
			next = afterTheCallIsSent(() => prepareBatch(upload, after))
			const outcome = await upsertBatch(client, prepared, signal)
			const saving = afterTheCallIsSent(() => saveBatch(upload, outcome))
			if (waiting) await attach(await waiting)
			waiting = saving
		}
		if (waiting) await attach(await waiting)
	} finally {
		await Promise.allSettled([...attachCheckpoints, waiting])
	}
	await Promise.all(attachCheckpoints)
	if (upload.attach_unsure) {
		await db
			.updateTable('emailbison_upload')
			.set({ attach_unsure: false, updated_at: sql`now()` })
			.where('id', '=', upload.id)
			.execute()
		upload.attach_unsure = false
	}
}

/** An upload that went through but where EmailBison took none of the leads it was sent. */
export const EVERY_LEAD_REJECTED =
	'EmailBison rejected every lead: nothing was uploaded. Download the rejected rows to see why.'

async function finish(
	uploadId: string,
	outcome: { ok: true } | { ok: false; error: string },
	executor: typeof db = db,
) {
	// every lead rejected is a failed upload, not a done one (issue 32 point 6)
	const nothingSent = sql<boolean>`sent = 0 and rejected > 0`
	// the end and its notification commit together (decision 0082)
	await inTransaction(executor, async (trx) => {
		await trx
			.updateTable('emailbison_upload')
			.set({
				status: outcome.ok
					? sql<number>`case when ${nothingSent} then ${UploadStatus.fail}::int else ${UploadStatus.success}::int end`
					: UploadStatus.fail,
				error: outcome.ok
					? sql<string | null>`case when ${nothingSent} then ${EVERY_LEAD_REJECTED}::text end`
					: outcome.error,
				updated_at: sql`now()`,
			})
			.where('id', '=', uploadId)
			.where('status', 'in', [UploadStatus.pending, UploadStatus.processing])
			.execute()
		await notifyJobEnd(trx, { kind: 'upload', id: uploadId })
	})
}

/** Why an upload ended for good: final, never "we will try again" (nothing will). */
function describeFailure(error: unknown) {
	if (error instanceof UploadFailure) return error.message
	if (error instanceof EmailBisonError) {
		if (error.kind === 'key')
			return 'EmailBison refused the API key: check the super-admin key in Settings.'
		if (error.kind === 'rate-limited')
			return 'EmailBison kept rate limiting the upload, so it stopped after several tries. Upload the list again to send the rest.'
		if (error.kind === 'unavailable')
			return `${error.status ? `EmailBison kept failing (${error.status})` : 'EmailBison could not be reached'}, so the upload stopped after several tries. Check the EmailBison URL in Settings, then upload the list again to send the rest.`
		return error.message
	}
	return 'Something went wrong while uploading to EmailBison. Upload the list again to send the rest.'
}

/** Uploads still pending or running while no job of theirs is queued or running. */
export async function unfinishedUploads(quietSeconds: number) {
	const rows = await db
		.selectFrom('emailbison_upload as u')
		.select('u.id')
		.where('u.status', 'in', [UploadStatus.pending, UploadStatus.processing])
		.where(quietFor('u.updated_at', quietSeconds))
		.where(withoutLiveJob('emailbison-upload', sql`jsonb_build_object('uploadId', u.id)`))
		.execute()
	return rows.map((r) => ({ uploadId: r.id }))
}

/** The sweep's end of an upload whose job pg-boss will not run again (decision 0062). */
export async function settleEndedUpload(uploadId: string) {
	return db.transaction().execute(async (trx) => {
		const locked = await trx
			.selectFrom('emailbison_upload')
			.select('status')
			.where('id', '=', uploadId)
			.forUpdate()
			.executeTakeFirst()
		if (locked?.status !== UploadStatus.pending && locked?.status !== UploadStatus.processing)
			return false
		const job = await endedJob(trx, 'emailbison-upload', { uploadId })
		if (!job) return false
		await finish(
			uploadId,
			{
				ok: false,
				error: `The upload stopped. ${whyEnded(job)} The leads sent so far are in the campaign; upload the list again to send the rest.`,
			},
			trx,
		)
		return true
	})
}

/**
 * The emailbison-upload job: creates missing custom variables, then upserts the upload's
 * leads in batches of at most 500 and attaches the returned ids to the campaign. Every
 * batch's outcome is checkpointed per lead (EmailBison id, attached, or the rejection), so
 * a re-run after a crash sends only what is not yet done: each lead lands in the campaign
 * once (upserts are by email, so a batch sent again before its checkpoint creates nothing;
 * an attach in flight at the crash is reconciled with the campaign's leads, never repeated).
 * Checkpoints commit durably: a relaxed commit lost in a database crash would repeat calls.
 */
export async function runEmailBisonUpload(
	uploadId: string,
	job: JobContext,
	clientOptions: ClientOptions = {},
) {
	const upload = await loadUpload(uploadId)
	if (!upload || upload.status === UploadStatus.success || upload.status === UploadStatus.fail)
		return
	await db
		.updateTable('emailbison_upload')
		.set({ status: UploadStatus.processing, updated_at: sql`now()` })
		.where('id', '=', uploadId)
		.where('status', '=', UploadStatus.pending)
		.execute()
	try {
		// "verify first" waits for its verification; the leads the choice leaves out go
		await applyVerifyChoice(uploadId, job.windowPauses)
		const access = await loadEmailBisonAccess(upload.user_id)
		if (!access) throw new UploadFailure(NOT_CONFIGURED)
		await inEbWorkspace(
			access,
			Number(upload.eb_workspace_id),
			async (client) => {
				await ensureCustomVariables(client, upload, job.signal)
				// a crash between an upsert's checkpoint and its attach: attach those first
				await attachPending(client, upload, job.signal)
				await uploadBatches(client, upload, job.signal)
				await verifyAttached(client, upload, job.signal)
			},
			clientOptions,
		)
		await finish(uploadId, { ok: true })
	} catch (error) {
		const retryable =
			(error instanceof EmailBisonError && error.retryable) ||
			job.signal.aborted ||
			!(error instanceof EmailBisonError || error instanceof UploadFailure)
		if (retryable && job.retryCount < UPLOAD_RETRY_LIMIT) throw error
		// a rate limit spends no attempt: the worker puts the job back to wait (decision 0062)
		if (
			error instanceof EmailBisonError &&
			error.kind === 'rate-limited' &&
			(job.rateLimited ?? 0) < RATE_LIMIT_RESCHEDULES
		)
			throw error
		if (!(error instanceof EmailBisonError || error instanceof UploadFailure))
			logger.error({ err: error, uploadId }, 'EmailBison upload failed')
		await finish(uploadId, { ok: false, error: describeFailure(error) })
	}
}
