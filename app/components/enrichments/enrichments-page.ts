import type { SubmissionResult } from '@conform-to/react'
import type { Enrichment, Preview } from '../../services/enrichments/enrichments.server.ts'

/** What /enrichments' forms read of its loader data. */
export type EnrichmentsPageData = {
	enrichments: Enrichment[]
	/** the columns a prompt or condition may name */
	columns: string[]
	lists: { id: string; name: string; found: number; kind: 'leads' | 'companies' }[]
	/** the list the preview runs on, chosen with ?list= */
	defaultListId: string
}

/** /enrichments' action answer: the form it is for (its intent), and a preview when asked. */
export type EnrichmentsActionResult = {
	intent: string
	result: SubmissionResult<string[]>
	preview: Preview | null
}
