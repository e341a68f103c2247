import { data } from 'react-router'
import type { SubmissionResult } from '@conform-to/react'
import { getConfig } from '../../config.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { VERIFIER_LABELS } from '../../integrations/email-verifiers.server.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { readFormData } from '../../utils/form-data.server.ts'
import { formErrorReply } from '../../utils/form-errors.server.ts'
import { redirectWithSuccess } from '../../utils/toast.server.ts'
import { getCreditBalance } from '../billing/credits.server.ts'
import { newFormKey, oncePerSubmission } from '../idempotency/form-submissions.server.ts'
import { findLeadList } from '../lists/find-list.server.ts'
import { actingAccount } from '../workspaces/access.server.ts'
import { CancelVerifySchema, PAY_WITH, VerifySchema } from './schemas.ts'
import {
	cancelVerification,
	estimateVerification,
	listVerifications,
	platformKey,
	startVerification,
	statusCounts,
	type VerifyEstimate,
} from './verify-runs.server.ts'

// The verify page of a lead list (/lists/:listId/verify): its loader and its one action
// (estimate, start, cancel); the page is app/components/verification/verify-page.tsx.

export type VerifyActionResult = {
	intent: string
	result: SubmissionResult<string[]>
	estimate: VerifyEstimate | null
}

export async function loadVerifyPage(
	context: AccountContext | null,
	listId: unknown,
	request: Request,
) {
	const account = actingAccount(context)
	const { list } = await findLeadList(account, listId)
	const config = getConfig()
	const [runs, counts, balance] = await Promise.all([
		listVerifications(account, list.id),
		statusCounts(list.id),
		getCreditBalance(account.accountId),
	])
	const search = new URL(request.url).searchParams
	// what paying each way means, for the choice
	const payOptions = PAY_WITH.filter((p) =>
		p === 'credits'
			? Boolean(platformKey(config.VERIFY_PROVIDER))
			: account.apiKeyProviders.includes(p),
	).map((p) => ({
		value: p,
		label:
			p === 'credits'
				? `Credits (${VERIFIER_LABELS[config.VERIFY_PROVIDER]}, ${config.CREDITS_PER_VERIFICATION} a valid, invalid or disposable answer)`
				: `Your ${VERIFIER_LABELS[p]} key (no credits)`,
	}))
	return {
		list: { id: list.id, name: list.name, found: list.found },
		runs,
		counts,
		balance,
		payOptions,
		q: (search.get('q') ?? '').trim().slice(0, 200),
		cacheDays: config.VERIFY_CACHE_DAYS,
		formKey: newFormKey(),
	}
}

export async function verifyPageAction(
	context: AccountContext | null,
	listId: unknown,
	request: Request,
) {
	// another account's list is a 404 before anything is read from the form
	const { list } = await findLeadList(context, listId)
	const here = `/lists/${list.id}/verify`
	const formData = await readFormData(request)
	const intent = String(formData.get('intent') ?? '')
	if (intent === 'cancel') {
		const submission = parseWithZod(formData, { schema: CancelVerifySchema })
		if (submission.status !== 'success')
			return data<VerifyActionResult>(
				{ intent, result: submission.reply(), estimate: null },
				{ status: 400 },
			)
		try {
			await cancelVerification(context, list.id, submission.value.runId)
			return redirectWithSuccess(here, 'Verification cancelled; unchecked emails are not charged')
		} catch (error) {
			return formErrorReply(error, submission, { intent, estimate: null })
		}
	}
	const submission = parseWithZod(formData, { schema: VerifySchema })
	if (submission.status !== 'success')
		return data<VerifyActionResult>(
			{ intent, result: submission.reply(), estimate: null },
			{ status: 400 },
		)
	const value = submission.value
	const input = {
		listId: list.id,
		payWith: value.payWith,
		only: value.only,
		filter: { q: value.q },
	}
	try {
		if (value.intent === 'estimate') {
			const estimate = await estimateVerification(context, input)
			return data<VerifyActionResult>({ intent, result: submission.reply(), estimate })
		}
		// sent twice: one run, one credit hold, one job
		const done = await oncePerSubmission(
			{ accountId: actingAccount(context).accountId, form: 'verify-run', formData },
			async (trx) => {
				const { rows } = await startVerification(context, input, trx)
				return {
					to: here,
					message: `Verifying ${rows.toLocaleString('en')} ${rows === 1 ? 'email' : 'emails'}`,
				}
			},
		)
		return redirectWithSuccess(done.to, done.message)
	} catch (error) {
		return formErrorReply(error, submission, { intent, estimate: null })
	}
}
