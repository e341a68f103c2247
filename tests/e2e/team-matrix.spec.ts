// The authorization matrix over HTTP: every route and action of workspaces and the team
// (and the foundation screens they sit beside), through the production build, with real
// sessions. Personas: the owner of account A (with a plan); a team admin; editors without
// and with each domain scope; an admin without access to workspace X; a stranger who owns
// account B; and a signed-out visitor. Each cell is the exact status of a document request
// (redirects not followed). The service-level matrix is app/services/authorization-matrix.test.ts.
import { randomUUID } from 'node:crypto'
import { expect, request as http, test, type APIRequestContext } from '@playwright/test'
import { PASSWORD, uniqueEmail, withDatabase } from './support.ts'

type Persona =
	'owner' | 'admin' | 'editor' | 'editorRead' | 'editorWrite' | 'noX' | 'stranger' | 'anonymous'
// Mutating actions run the owner last, so that its change does not decide the others' cells.
const ORDER: Persona[] = [
	'anonymous',
	'admin',
	'editor',
	'editorRead',
	'editorWrite',
	'noX',
	'stranger',
	'owner',
]

type World = {
	clients: Record<Persona, APIRequestContext>
	ids: Record<Persona, string>
	memberIds: Record<string, string>
	X: string
	Y: string
	Z: string
	listX: string
	domainX: string
	orderX: string
	invitationA: string
	removable: string
}

async function signedUpClient(baseURL: string, email?: string) {
	const client = await http.newContext({ baseURL, extraHTTPHeaders: { Origin: baseURL } })
	if (!email) return client
	const response = await client.post('/signup', {
		form: { fullName: 'Matrix Person', email, password: PASSWORD },
		maxRedirects: 0,
	})
	expect(response.status(), `sign up ${email}`).toBe(302)
	return client
}

async function buildWorld(baseURL: string): Promise<World> {
	const personas = ORDER.filter((p) => p !== 'anonymous')
	const emails = Object.fromEntries(personas.map((p) => [p, uniqueEmail(`m-${p.toLowerCase()}`)]))
	const removableEmail = uniqueEmail('m-removable')
	const clients = { anonymous: await signedUpClient(baseURL) } as Record<Persona, APIRequestContext>
	for (const p of personas) clients[p] = await signedUpClient(baseURL, emails[p])
	await signedUpClient(baseURL, removableEmail).then((c) => c.dispose())

	return withDatabase(async (db) => {
		const idOf = async (email: string) =>
			(await db.query('select id from auth.users where email = $1', [email])).rows[0].id as string
		const ids = {} as Record<Persona, string>
		for (const p of personas) ids[p] = await idOf(emails[p]!)
		const removableId = await idOf(removableEmail)
		const owner = ids.owner
		const insert = async (text: string, values: unknown[]) =>
			(await db.query(text, values)).rows[0]?.id as string
		for (const who of [owner, ids.stranger]) {
			await db.query(
				`insert into subscriptions (user_id, active_plan, status, billing_date, expire_date)
				values ($1, 2, 'active', now(), now() + interval '30 days')`,
				[who],
			)
			// owners have answered onboarding (another screen's business)
			await db.query(
				`insert into onboarding (user_id, completed_at) values ($1, now())
				on conflict (user_id) do nothing`,
				[who],
			)
		}
		const workspace = (user: string, name: string) =>
			insert('insert into workspaces (user_id, name) values ($1, $2) returning id', [user, name])
		const X = await workspace(owner, 'X')
		const Y = await workspace(owner, 'Y')
		const Z = await workspace(ids.stranger, 'Z')
		const listX = await insert(
			`insert into processing_list (user_id, workspace_id, name, source_type)
			values ($1, $2, 'Leads X', 'upload') returning id`,
			[owner, X],
		)
		const domainX = await insert(
			`insert into domains (user_id, workspace_id, name, source)
			values ($1, $2, $3, 'imported') returning id`,
			[owner, X, `x-${randomUUID().slice(0, 8)}.example`],
		)
		const orderX = await insert(
			`insert into inbox_orders (user_id, workspace_id, provider, inboxes_per_domain)
			values ($1, $2, 'google', 2) returning id`,
			[owner, X],
		)
		const memberIds: Record<string, string> = {}
		const member = async (
			user: string,
			email: string,
			role: string,
			scopes: string[],
			workspaces: string[] | null,
		) => {
			const id = await insert(
				`insert into team_members (user_id, email, role, access_all_workspaces, member_user_id,
					status, scopes, accepted_at)
				values ($1, $2, $3, $4, $5, 'active', $6, now()) returning id`,
				[owner, email, role, workspaces === null, user, scopes],
			)
			for (const w of workspaces ?? []) {
				await db.query(
					'insert into team_member_workspace_acess (team_member_id, workspace_id) values ($1, $2)',
					[id, w],
				)
			}
			await db.query('update profiles set primary_user_id = $1 where user_id = $2', [owner, user])
			return id
		}
		memberIds.admin = await member(ids.admin, emails.admin!, 'admin', [], null)
		memberIds.editor = await member(ids.editor, emails.editor!, 'editor', [], null)
		memberIds.editorRead = await member(
			ids.editorRead,
			emails.editorRead!,
			'editor',
			['domain-management:read'],
			null,
		)
		memberIds.editorWrite = await member(
			ids.editorWrite,
			emails.editorWrite!,
			'editor',
			['domain-management:read', 'domain-management:write'],
			null,
		)
		memberIds.noX = await member(ids.noX, emails.noX!, 'admin', [], [Y])
		const removable = await member(removableId, removableEmail, 'editor', [], null)
		const invitationA = await insert(
			`insert into team_members (user_id, email, role, status, expires_at)
			values ($1, $2, 'editor', 'invited', now() + interval '7 days') returning id`,
			[owner, uniqueEmail('m-pending')],
		)
		return {
			clients,
			ids,
			memberIds,
			X,
			Y,
			Z,
			listX,
			domainX,
			orderX,
			invitationA,
			removable,
		}
	})
}

type Cell = number | `302 ${string}`
type Row = {
	name: string
	method: 'GET' | 'POST'
	url: (w: World) => string
	form?: (w: World) => Record<string, string | string[]>
	expect: Record<Persona, Cell>
}

const signIn = (path: string) => `302 /signin?redirectTo=${encodeURIComponent(path)}` as const
const all = (cell: Cell, overrides: Partial<Record<Persona, Cell>> = {}) =>
	({
		owner: cell,
		admin: cell,
		editor: cell,
		editorRead: cell,
		editorWrite: cell,
		noX: cell,
		stranger: cell,
		anonymous: cell,
		...overrides,
	}) as Record<Persona, Cell>

const ROWS: Row[] = [
	{ name: 'GET /', method: 'GET', url: () => '/', expect: all(200, { anonymous: '302 /signin' }) },
	{
		name: 'GET /settings',
		method: 'GET',
		url: () => '/settings',
		expect: all(200, { anonymous: signIn('/settings') }),
	},
	{
		name: 'GET /workspaces',
		method: 'GET',
		url: () => '/workspaces',
		expect: all(200, { anonymous: signIn('/workspaces') }),
	},
	{
		name: 'GET /team-members',
		method: 'GET',
		url: () => '/team-members',
		expect: all(403, { owner: 200, stranger: 200, anonymous: signIn('/team-members') }),
	},
	{
		name: 'GET /attach-workspace (list in X)',
		method: 'GET',
		url: (w) => `/attach-workspace?type=list&id=${w.listX}`,
		expect: all(200, { noX: 404, stranger: 404, anonymous: 302 }),
	},
	{
		name: 'GET /attach-workspace (domain in X)',
		method: 'GET',
		url: (w) => `/attach-workspace?type=domain&id=${w.domainX}`,
		expect: all(200, { editor: 403, noX: 404, stranger: 404, anonymous: 302 }),
	},
	{
		name: 'GET /attach-workspace (unknown type)',
		method: 'GET',
		url: (w) => `/attach-workspace?type=users&id=${w.listX}`,
		expect: all(404, { anonymous: 302 }),
	},
	{
		name: 'GET /accept-invitation (unknown token)',
		method: 'GET',
		url: () => '/accept-invitation?token=nope',
		expect: all(404),
	},
	{
		name: 'POST /settings profile',
		method: 'POST',
		url: () => '/settings',
		form: () => ({ intent: 'profile', fullName: 'Renamed Person', company: '' }),
		expect: all('302 /settings', { anonymous: signIn('/settings') }),
	},
	{
		name: 'POST /workspaces create',
		method: 'POST',
		url: () => '/workspaces',
		form: () => ({ intent: 'create', name: `W ${randomUUID().slice(0, 6)}` }),
		expect: all('302 /workspaces', {
			editor: 403,
			editorRead: 403,
			editorWrite: 403,
			anonymous: signIn('/workspaces'),
		}),
	},
	{
		name: 'POST /workspaces rename X',
		method: 'POST',
		url: () => '/workspaces',
		form: (w) => ({ intent: 'rename', workspaceId: w.X, name: 'X' }),
		expect: all('302 /workspaces', {
			editor: 403,
			editorRead: 403,
			editorWrite: 403,
			noX: 404,
			stranger: 404,
			anonymous: signIn('/workspaces'),
		}),
	},
	{
		name: 'POST /workspaces rename Z (account B)',
		method: 'POST',
		url: () => '/workspaces',
		form: (w) => ({ intent: 'rename', workspaceId: w.Z, name: 'Z' }),
		expect: all(404, { stranger: '302 /workspaces', anonymous: signIn('/workspaces') }),
	},
	{
		name: 'POST /workspaces delete X (holds a list, a domain, an order)',
		method: 'POST',
		url: () => '/workspaces',
		form: (w) => ({ intent: 'delete', workspaceId: w.X }),
		expect: all(400, {
			editor: 403,
			editorRead: 403,
			editorWrite: 403,
			noX: 404,
			stranger: 404,
			anonymous: signIn('/workspaces'),
		}),
	},
	{
		name: 'POST /workspaces/switch to X',
		method: 'POST',
		url: () => '/workspaces/switch',
		form: (w) => ({ workspaceId: w.X, redirectTo: '/settings' }),
		expect: all('302 /settings', {
			noX: 404,
			stranger: 404,
			anonymous: '302 /signin?redirectTo=%2Fworkspaces',
		}),
	},
	{
		name: 'POST /workspaces/switch to Z (account B)',
		method: 'POST',
		url: () => '/workspaces/switch',
		form: (w) => ({ workspaceId: w.Z, redirectTo: '/settings' }),
		expect: all(404, {
			stranger: '302 /settings',
			anonymous: '302 /signin?redirectTo=%2Fworkspaces',
		}),
	},
	{
		name: 'POST /attach-workspace list in X -> X',
		method: 'POST',
		url: (w) => `/attach-workspace?type=list&id=${w.listX}&redirectTo=%2Fworkspaces`,
		form: (w) => ({ workspaceId: w.X }),
		expect: all('302 /workspaces', { noX: 404, stranger: 404, anonymous: 302 }),
	},
	{
		name: 'POST /attach-workspace list in X -> Z (account B)',
		method: 'POST',
		url: (w) => `/attach-workspace?type=list&id=${w.listX}&redirectTo=%2Fworkspaces`,
		form: (w) => ({ workspaceId: w.Z }),
		expect: all(404, { anonymous: 302 }),
	},
	{
		name: 'POST /attach-workspace domain in X -> X',
		method: 'POST',
		url: (w) => `/attach-workspace?type=domain&id=${w.domainX}&redirectTo=%2Fworkspaces`,
		form: (w) => ({ workspaceId: w.X }),
		expect: all('302 /workspaces', {
			editor: 403,
			editorRead: 403,
			noX: 404,
			stranger: 404,
			anonymous: 302,
		}),
	},
	{
		name: 'POST /attach-workspace inbox order in X -> X',
		method: 'POST',
		url: (w) => `/attach-workspace?type=inbox-order&id=${w.orderX}&redirectTo=%2Fworkspaces`,
		form: (w) => ({ workspaceId: w.X }),
		expect: all('302 /workspaces', {
			editor: 403,
			editorRead: 403,
			noX: 404,
			stranger: 404,
			anonymous: 302,
		}),
	},
	{
		name: 'POST /team-members invite (all workspaces)',
		method: 'POST',
		url: () => '/team-members',
		form: () => ({ intent: 'invite', email: uniqueEmail('m-new'), role: 'editor', access: 'all' }),
		expect: all(403, {
			owner: '302 /team-members',
			stranger: '302 /team-members',
			anonymous: signIn('/team-members'),
		}),
	},
	{
		name: 'POST /team-members invite into Z (account B)',
		method: 'POST',
		url: () => '/team-members',
		form: (w) => ({
			intent: 'invite',
			email: uniqueEmail('m-new'),
			role: 'editor',
			access: 'selected',
			workspaceIds: [w.Z],
		}),
		expect: all(404, { stranger: '302 /team-members', anonymous: signIn('/team-members') }),
	},
	{
		name: "POST /team-members resend A's invitation",
		method: 'POST',
		url: () => '/team-members',
		form: (w) => ({ intent: 'resend', memberId: w.invitationA }),
		expect: all(403, {
			owner: '302 /team-members',
			stranger: 404,
			anonymous: signIn('/team-members'),
		}),
	},
	{
		name: "POST /team-members edit A's read-only editor",
		method: 'POST',
		url: () => '/team-members',
		form: (w) => ({
			intent: 'update',
			memberId: w.memberIds.editorRead!,
			role: 'editor',
			access: 'all',
			scopes: ['domain-management:read'],
		}),
		expect: all(403, {
			owner: '302 /team-members',
			stranger: 404,
			anonymous: signIn('/team-members'),
		}),
	},
	{
		name: "POST /team-members revoke A's invitation",
		method: 'POST',
		url: () => '/team-members',
		form: (w) => ({ intent: 'revoke', memberId: w.invitationA }),
		expect: all(403, {
			owner: '302 /team-members',
			stranger: 404,
			anonymous: signIn('/team-members'),
		}),
	},
	{
		name: "POST /team-members remove A's member",
		method: 'POST',
		url: () => '/team-members',
		form: (w) => ({ intent: 'remove', memberId: w.removable }),
		expect: all(403, {
			owner: '302 /team-members',
			stranger: 404,
			anonymous: signIn('/team-members'),
		}),
	},
	{
		name: 'POST /accept-invitation with an unknown token',
		method: 'POST',
		url: () => '/accept-invitation',
		form: () => ({ intent: 'accept', token: 'nope' }),
		expect: all(400),
	},
]

function describeResponse(status: number, location: string | undefined): Cell {
	if (status !== 302) return status
	return location ? `302 ${location}` : 302
}

function matches(expected: Cell, actual: Cell) {
	// a bare 302 accepts any redirect target
	return expected === 302 ? String(actual).startsWith('302') : expected === actual
}

// HTTP only: the browser's JavaScript setting changes nothing here, so it runs in one project
test.skip(({ javaScriptEnabled }) => javaScriptEnabled === false, 'HTTP only; once')

test('every route and action, for every persona', async ({ baseURL }) => {
	test.setTimeout(120_000)
	const world = await buildWorld(baseURL!)
	const failures: string[] = []
	for (const row of ROWS) {
		for (const persona of ORDER) {
			const client = world.clients[persona]
			const url = row.url(world)
			const response =
				row.method === 'GET'
					? await client.get(url, { maxRedirects: 0 })
					: await client.post(url, {
							headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
							data: new URLSearchParams(
								Object.entries(row.form!(world)).flatMap(([k, v]) =>
									(Array.isArray(v) ? v : [v]).map((item) => [k, item]),
								),
							).toString(),
							maxRedirects: 0,
						})
			const actual = describeResponse(response.status(), response.headers()['location'])
			if (!matches(row.expect[persona], actual)) {
				failures.push(`${row.name} as ${persona}: expected ${row.expect[persona]}, got ${actual}`)
			}
		}
	}
	expect(failures).toEqual([])
	for (const client of Object.values(world.clients)) await client.dispose()
})

test('a removed member is back in its own account on its next request', async ({ baseURL }) => {
	const world = await buildWorld(baseURL!)
	const editor = world.clients.editor
	expect((await editor.get('/', { maxRedirects: 0 })).status()).toBe(200)
	const removed = await world.clients.owner.post('/team-members', {
		form: { intent: 'remove', memberId: world.memberIds.editor! },
		maxRedirects: 0,
	})
	expect(removed.status()).toBe(302)
	// no plan of its own: the subscription middleware sends it on
	const next = await editor.get('/', { maxRedirects: 0 })
	expect(next.status()).toBe(302)
	expect(next.headers()['location']).toBe('/subscription')
	expect((await editor.get(`/attach-workspace?type=list&id=${world.listX}`)).status()).toBe(404)
	// narrowing the admin to Y: the list in X is out of its reach on its next request
	const narrowed = await world.clients.owner.post('/team-members', {
		form: {
			intent: 'update',
			memberId: world.memberIds.admin!,
			role: 'admin',
			access: 'selected',
			workspaceIds: world.Y,
		},
		maxRedirects: 0,
	})
	expect(narrowed.status()).toBe(302)
	expect(
		(await world.clients.admin.get(`/attach-workspace?type=list&id=${world.listX}`)).status(),
	).toBe(404)
	for (const client of Object.values(world.clients)) await client.dispose()
})
