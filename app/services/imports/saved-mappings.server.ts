import { createHash } from 'node:crypto'
import type { Kysely } from 'kysely'
import { z } from 'zod'
import { db } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import {
	headerSignature,
	LEAD_FIELD_KEYS,
	mappingStep,
	type ColumnMapping,
	type MappingInput,
	type MappingStep,
} from './mapping.ts'

// An account's column mappings by the headers of the file they were made for (decision
// 0081): the next file with the same headers maps itself as the last one was mapped.

/** The key of a header row: a hash, so that a file of many long headers fits the index. */
function signatureOf(headers: string[]) {
	return createHash('sha256').update(headerSignature(headers)).digest('hex')
}

const SavedMapping = z.object({
	fields: z.partialRecord(z.enum(LEAD_FIELD_KEYS), z.number().int().min(0)),
	keepExtra: z.boolean(),
})

/** What the mapping step shows for an upload's first records: the saved mapping, else the guess. */
export async function mappingStepFor(
	accountId: string,
	head: string[][],
	executor: Kysely<DB> = db,
): Promise<MappingStep> {
	const step = mappingStep(head)
	const headers = head[0]
	if (!step.hasHeader || !headers) return step
	const row = await executor
		.selectFrom('import_mappings')
		.select('mapping')
		.where('account_id', '=', accountId)
		.where('signature', '=', signatureOf(headers))
		.executeTakeFirst()
	const saved = SavedMapping.safeParse(row?.mapping)
	if (!saved.success) return step
	const guess: ColumnMapping = { extra: [] }
	const used = new Set<number>()
	for (const field of LEAD_FIELD_KEYS) {
		const column = saved.data.fields[field]
		if (column === undefined || column >= step.columns.length || used.has(column)) continue
		guess[field] = column
		used.add(column)
	}
	if (guess.email === undefined) return step
	for (const column of step.columns) {
		if (!used.has(column.index) && column.header) guess.extra.push([column.index, column.header])
	}
	return { ...step, guess, saved: true, keepExtra: saved.data.keepExtra }
}

/** Keeps an import's mapping for the next file with these headers (the latest one wins). */
export async function saveMapping(
	executor: Kysely<DB>,
	accountId: string,
	headers: string[],
	input: MappingInput,
) {
	const fields: Partial<Record<(typeof LEAD_FIELD_KEYS)[number], number>> = {}
	for (const field of LEAD_FIELD_KEYS) {
		if (input[field] !== undefined) fields[field] = input[field]
	}
	const mapping = JSON.stringify({ fields, keepExtra: input.keepExtra })
	await executor
		.insertInto('import_mappings')
		.values({ account_id: accountId, signature: signatureOf(headers), mapping })
		.onConflict((oc) =>
			oc.columns(['account_id', 'signature']).doUpdateSet({ mapping, updated_at: new Date() }),
		)
		.execute()
}
