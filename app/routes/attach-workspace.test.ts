import { RouterContextProvider } from 'react-router'
import { describe, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { buildAccounts, contextOf } from '../../tests/support/team.ts'
import { requestContext } from '../context.server.ts'
import { statusOf } from '../utils/http-errors.server.ts'
import * as attach from './attach-workspace.tsx'

// The attach-workspace route as the server calls it. With JavaScript the modal posts to the
// `.data` endpoint (/attach-workspace.data?…): the move must still land on a page.

async function post(account: unknown, path: string, form: Record<string, string>) {
	const context = new RouterContextProvider()
	context.set(requestContext, { account, responseHeaders: new Headers(), supabase: null } as never)
	const request = new Request(`http://localhost${path}`, {
		method: 'POST',
		body: new URLSearchParams(form),
	})
	try {
		const result = await attach.action({ request, context, params: {} } as never)
		if (result instanceof Response)
			return { status: result.status, location: result.headers.get('Location') }
		return { status: statusOf(result), location: null }
	} catch (error) {
		return { status: statusOf(error), location: null }
	}
}

const workspaceOf = async (table: 'processing_list' | 'domains' | 'inbox_orders', id: string) =>
	(await db.selectFrom(table).select('workspace_id').where('id', '=', id).executeTakeFirstOrThrow())
		.workspace_id

describe('moving to a workspace', () => {
	test('returns to the page it started from, also when posted to the .data endpoint', async () => {
		const { users, workspaces, inX } = await buildAccounts(db)
		const owner = await contextOf(db, users.owner)
		const fromScrape = await post(
			owner,
			`/attach-workspace.data?type=list&id=${inX.list}&redirectTo=%2Fscrape`,
			{ workspaceId: workspaces.Y, redirectTo: '/scrape' },
		)
		expect(fromScrape).toEqual({ status: 302, location: '/scrape' })
		expect(await workspaceOf('processing_list', inX.list)).toBe(workspaces.Y)

		// a page with a query keeps it
		const fromInboxes = await post(
			owner,
			`/attach-workspace.data?type=inbox-order&id=${inX.inboxOrder}`,
			{ workspaceId: workspaces.Y, redirectTo: '/inboxes?status=active' },
		)
		expect(fromInboxes).toEqual({ status: 302, location: '/inboxes?status=active' })
		expect(await workspaceOf('inbox_orders', inX.inboxOrder)).toBe(workspaces.Y)
	})

	test('without a page to return to, or with one off the app, it lands where the item is listed', async () => {
		const { users, workspaces, inX } = await buildAccounts(db)
		const owner = await contextOf(db, users.owner)
		expect(
			await post(owner, `/attach-workspace.data?type=domain&id=${inX.domain}`, {
				workspaceId: workspaces.Y,
			}),
		).toEqual({ status: 302, location: '/domains' })
		expect(await workspaceOf('domains', inX.domain)).toBe(workspaces.Y)
		for (const redirectTo of [
			'//evil.example/x',
			'https://evil.example/',
			'/attach-workspace.data',
		]) {
			expect(
				await post(owner, `/attach-workspace.data?type=list&id=${inX.list}`, {
					workspaceId: workspaces.E,
					redirectTo,
				}),
			).toEqual({ status: 302, location: '/scrape' })
		}
	})

	test('no workspace chosen: a message at the field and nothing moved; another account’s: 404', async () => {
		const { users, workspaces, inX, inZ } = await buildAccounts(db)
		const owner = await contextOf(db, users.owner)
		expect(
			(await post(owner, `/attach-workspace?type=list&id=${inX.list}`, { redirectTo: '/scrape' }))
				.status,
		).toBe(400)
		expect(await workspaceOf('processing_list', inX.list)).toBe(workspaces.X)
		expect(
			(
				await post(owner, `/attach-workspace?type=list&id=${inZ.list}`, {
					workspaceId: workspaces.Y,
				})
			).status,
		).toBe(404)
		expect(
			(
				await post(owner, `/attach-workspace?type=list&id=${inX.list}`, {
					workspaceId: workspaces.Z,
				})
			).status,
		).toBe(404)
		expect(await workspaceOf('processing_list', inX.list)).toBe(workspaces.X)
	})
})
