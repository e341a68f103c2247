import { RouterContextProvider } from 'react-router'
import { describe, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { newOwner } from '../../tests/support/billing.ts'
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
