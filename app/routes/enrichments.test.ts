import { RouterContextProvider } from 'react-router'
import { describe, expect, test } from 'vitest'
import { db, getPool } from '../../db/index.server.ts'
import { newOwner } from '../../tests/support/billing.ts'
import { insertCompanyList, insertLeadList } from '../../tests/support/enrichment.ts'
import { requestContext, type AccountContext } from '../context.server.ts'
import * as enrichments from './enrichments.tsx'

// The chain builder without JavaScript: "Add a step" posts the form with conform's insert
// intent, and the page comes back with one more step, what was typed kept, nothing saved.

async function post(account: AccountContext | null, form: Record<string, string>) {
	const context = new RouterContextProvider()
	context.set(requestContext, { account, responseHeaders: new Headers(), supabase: null } as never)
	const request = new Request('http://localhost/enrichments', {
		method: 'POST',
		body: new URLSearchParams(form),
	})
	return (await enrichments.action({ request, context, params: {} } as never)) as unknown as {
		data: {
			intent: string
			result: { initialValue?: { name?: string; steps?: ({ kind?: string } | undefined)[] } }
		}
		init: { status?: number } | null
	}
}

const addStep = JSON.stringify({
	type: 'insert',
	payload: { name: 'steps', defaultValue: { kind: '' } },
})

describe('the chain builder', () => {
	test('"Add a step" comes back with one more step and keeps what was chosen', async () => {
		const { user, account } = await newOwner()
		const reply = await post(account, {
			intent: 'create-chain',
			name: 'Domains',
			'steps[0].kind': 'email-guess',
			__intent__: addStep,
		})
		expect(reply.init?.status ?? 200).toBe(200)
		const value = reply.data.result.initialValue
		expect(value?.name).toBe('Domains')
		// two steps now: the first as chosen, the new one empty
		expect(value?.steps).toHaveLength(2)
		expect(value?.steps?.[0]).toEqual({ kind: 'email-guess' })
		expect(value?.steps?.[1]?.kind ?? '').toBe('')
		const chains = await db
			.selectFrom('enrichment_chain')
			.select('id')
			.where('user_id', '=', user.id)
			.execute()
		expect(chains).toHaveLength(0)
	})
})

async function postRaw(account: AccountContext | null, form: Record<string, string>) {
	const context = new RouterContextProvider()
	context.set(requestContext, { account, responseHeaders: new Headers(), supabase: null } as never)
	const request = new Request('http://localhost/enrichments', {
		method: 'POST',
		body: new URLSearchParams(form),
	})
	try {
		return await enrichments.action({ request, context, params: {} } as never)
	} catch (error) {
		return error
	}
}

const statusOfReply = (reply: unknown) =>
	reply instanceof Response
		? reply.status
		: ((reply as { init?: { status?: number } | null }).init?.status ?? 200)

describe('saving an enrichment whatever list is chosen for its preview', () => {
	test('a company list in "Preview on 5 rows of" saves the enrichment (its columns known)', async () => {
		const { user, account } = await newOwner()
		// the account has only a company list: the form's preview list is that one
		const companyListId = await insertCompanyList(user.id, 3)
		const reply = await postRaw(account, {
			intent: 'create-enrichment',
			name: 'Angle',
			prompt: 'Find an angle for {{name}} ({{domain}})',
			outputColumn: 'angle',
			outputFormat: 'text',
			model: 'gpt-4o-mini',
			temperature: '0',
			listId: companyListId,
		})
		expect(statusOfReply(reply)).toBe(302)
		const saved = await db
			.selectFrom('ai_enrichments')
			.select('name')
			.where('user_id', '=', user.id)
			.execute()
		expect(saved.map((e) => e.name)).toEqual(['Angle'])
	})

	test('a lead list keeps working, and an unknown column is still refused at the prompt', async () => {
		const { user, account } = await newOwner()
		const leadListId = await insertLeadList(user.id, 2)
		const base = {
			intent: 'create-enrichment',
			outputFormat: 'text',
			model: 'gpt-4o-mini',
			temperature: '0',
			listId: leadListId,
		}
		const bad = (await postRaw(account, {
			...base,
			name: 'Bad',
			prompt: 'About {{nope}}',
			outputColumn: 'bad',
		})) as { data: { result: { error?: Record<string, string[]> } } }
		expect(statusOfReply(bad)).toBe(400)
		expect(bad.data.result.error?.prompt?.[0]).toContain('{{nope}}')
		const good = await postRaw(account, {
			...base,
			name: 'Good',
			prompt: 'About {{company_name}}',
			outputColumn: 'good',
		})
		expect(statusOfReply(good)).toBe(302)
	})
})

async function load(account: AccountContext | null, search = '') {
	const context = new RouterContextProvider()
	context.set(requestContext, { account, responseHeaders: new Headers(), supabase: null } as never)
	const request = new Request(`http://localhost/enrichments${search}`)
	return enrichments.loader({ request, context, params: {} } as never)
}

describe('the page reads its data in one round trip', () => {
	test('the saved enrichments, chains, columns, lists and both forms being edited: one statement', async () => {
		const { user, account } = await newOwner()
		const leadListId = await insertLeadList(user.id, 2)
		const companyListId = await insertCompanyList(user.id, 1)
		for (const post of [
			{ name: 'Summary', prompt: 'About {{company_name}}', outputColumn: 'summary' },
			{ name: 'Angle', prompt: 'Angle for {{company_name}}', outputColumn: 'angle' },
		]) {
			const reply = await postRaw(account, {
				intent: 'create-enrichment',
				...post,
				outputFormat: 'json',
				outputFields: 'industry:string, b2b:boolean',
				model: 'gpt-4o-mini',
				temperature: '0.5',
				listId: leadListId,
			})
			expect(statusOfReply(reply)).toBe(302)
		}
		const saved = await db
			.selectFrom('ai_enrichments')
			.select(['id', 'name'])
			.where('user_id', '=', user.id)
			.orderBy('created_at')
			.execute()
		expect(
			statusOfReply(
				await postRaw(account, {
					intent: 'create-chain',
					name: 'Waterfall',
					'steps[0].kind': 'ai',
					'steps[0].enrichmentId': saved[0]!.id,
					'steps[1].kind': 'email-guess',
					'steps[1].conditionColumn': 'summary.industry',
					'steps[1].conditionOp': 'empty',
				}),
			),
		).toBe(302)
		const [chain] = await db
			.selectFrom('enrichment_chain')
			.select('id')
			.where('user_id', '=', user.id)
			.execute()

		// Kysely checks out a connection of the pool for each statement sent outside a transaction
		const pool = getPool()
		let statements = 0
		const count = () => statements++
		pool.on('acquire', count)
		const page = await load(
			account,
			`?${new URLSearchParams({ edit: saved[1]!.id, editChain: chain!.id, list: companyListId })}`,
		).finally(() => pool.off('acquire', count))
		expect(statements).toBe(1)

		expect(page.enrichments.map((e) => e.name)).toEqual(['Summary', 'Angle'])
		expect(page.enrichments[0]).toMatchObject({
			outputColumn: 'summary',
			format: {
				kind: 'json',
				fields: [
					{ name: 'industry', type: 'string' },
					{ name: 'b2b', type: 'boolean' },
				],
			},
			model: 'gpt-4o-mini',
			temperature: 0.5,
		})
		expect(page.enrichments[0]!.createdAt).toBeInstanceOf(Date)
		expect(page.chains.map((c) => c.name)).toEqual(['Waterfall'])
		expect(page.chains[0]!.steps).toEqual([
			{ kind: 'ai', enrichmentId: saved[0]!.id, condition: null },
			{
				kind: 'email-guess',
				outputColumn: 'email_guess',
				condition: { column: 'summary.industry', op: 'empty', value: '' },
			},
		])
		expect(page.columns).toEqual(
			expect.arrayContaining(['email', 'summary', 'summary.industry', 'angle.b2b', 'email_guess']),
		)
		expect(page.lists.map((l) => [l.id, l.kind])).toEqual([
			[leadListId, 'leads'],
			[companyListId, 'companies'],
		])
		expect(page.defaultListId).toBe(companyListId)
		expect(page.editing?.name).toBe('Angle')
		expect(page.editingChain?.name).toBe('Waterfall')
	})

	test("another account's enrichment or chain, or no id at all, to edit is not found", async () => {
		const { account } = await newOwner()
		const other = await newOwner()
		const reply = await postRaw(other.account, {
			intent: 'create-enrichment',
			name: 'Theirs',
			prompt: 'About {{company_name}}',
			outputColumn: 'theirs',
			outputFormat: 'text',
			model: 'gpt-4o-mini',
			temperature: '0',
		})
		expect(statusOfReply(reply)).toBe(302)
		const [theirs] = await db
			.selectFrom('ai_enrichments')
			.select('id')
			.where('user_id', '=', other.user.id)
			.execute()
		for (const search of [`?edit=${theirs!.id}`, '?edit=nope', `?editChain=${theirs!.id}`]) {
			expect(statusOfReply(await load(account, search).catch((error: unknown) => error))).toBe(404)
		}
		const page = await load(account)
		expect(page).toMatchObject({ enrichments: [], chains: [], lists: [], defaultListId: '' })
		expect(page.editing).toBeNull()
	})
})
