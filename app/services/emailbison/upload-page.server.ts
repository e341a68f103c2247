import type { AccountContext } from '../../context.server.ts'
import { formErrorMessage } from '../../utils/form-errors.server.ts'
import { uploadExclusions } from '../do-not-contact/match.server.ts'
import { findLeadList } from '../lists/find-list.server.ts'
import { statusCounts } from '../verification/verify-runs.server.ts'
import { DEFAULT_FIELDS, sourceOptions } from './mapping.ts'
import { preflightCounts } from './preflight.server.ts'
import { EB_FIELDS } from './schemas.ts'
import { listDataKeys, listEbCampaigns, listEbWorkspaces, listUploads } from './uploads.server.ts'

/**
 * What the upload page of a lead list (/lists/:listId/upload) shows, step by step: the
 * EmailBison workspaces, then, with one chosen (?workspace=), its campaigns, the list's
 * sources for each field and how many leads each leaves empty. EmailBison's refusal (no key,
 * a key it does not take) is the page's `problem`, with what was read before it.
 */
export async function loadUploadPage(context: AccountContext | null, listId: unknown, url: URL) {
	const { account: acting, list } = await findLeadList(context, listId)
	const chosen = Number(url.searchParams.get('workspace')) || null
	const history = await listUploads(acting, { listId: list.id })
	const base = {
		list: { id: list.id, name: list.name, found: list.found },
		history,
		// the leads per verification status, for the form's choices
		statusCounts: await statusCounts(list.id),
	}
	let workspaces: { id: number; name: string }[] = []
	try {
		workspaces = await listEbWorkspaces(acting.accountId)
	} catch (error) {
		const problem = formErrorMessage(error)
		return { ...base, problem, workspaces, workspace: null, campaigns: [], sources: [] }
	}
	const workspace = workspaces.find((w) => w.id === chosen) ?? null
	if (!workspace)
		return { ...base, problem: null, workspaces, workspace, campaigns: [], sources: [] }
	let campaigns: { id: number; name: string }[] = []
	try {
		campaigns = (await listEbCampaigns(acting.accountId, workspace.id)).map((c) => ({
			id: c.id,
			name: c.name,
		}))
	} catch (error) {
		const problem = formErrorMessage(error)
		return { ...base, problem, workspaces, workspace, campaigns, sources: [] }
	}
	const dataKeys = await listDataKeys(list.id)
	const sources = sourceOptions(dataKeys)
	// how many leads each source leaves empty: the form warns before EmailBison rejects them
	const preflight = await preflightCounts(list.id, dataKeys)
	// do-not-contact and duplicates: what the upload will leave out
	const exclusions = await uploadExclusions(
		acting.accountId,
		list.id,
		list.workspaceId,
		String(workspace.id),
	)
	// "Check the fields" without JavaScript comes back here with the chosen sources
	const offered = new Set(sources.map((o) => o.value))
	const mapping: Record<string, string> = { ...DEFAULT_FIELDS }
	for (const field of EB_FIELDS) {
		const chosenSource = url.searchParams.get(`map_${field}`)
		if (chosenSource !== null && (chosenSource === '' || offered.has(chosenSource)))
			mapping[field] = chosenSource
	}
	return {
		...base,
		problem: null,
		workspaces,
		workspace,
		campaigns,
		sources,
		preflight,
		mapping,
		exclusions,
	}
}
