// The permissions table of DESIGN.md section 4, enforced by the services, cell by cell:
// every workspace and team operation for the owner, a team admin, editors without and with
// each scope, an admin without access to workspace X, and a stranger owning another account.
// 'ok' = allowed; 403 = refused; 404 = not found (another account's ids, or a workspace the
// member may not use); 'form' = allowed but refused with a message on the form.
// The same matrix over HTTP, through the built app, is tests/e2e/team-matrix.spec.ts.
import { describe, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { guards } from '../middleware/route-guards.server.ts'
import { inviteMember } from './team/invite-member.server.ts'
import { listTeam } from './team/list-team.server.ts'
import { removeMember } from './team/remove-member.server.ts'
import { resendInvitation } from './team/resend-invitation.server.ts'
import { revokeInvitation } from './team/revoke-invitation.server.ts'
import { updateMember } from './team/update-member.server.ts'
import type { ActingAccount } from './workspaces/access.server.ts'
import { createWorkspace } from './workspaces/create-workspace.server.ts'
import { chooseWorkspace } from './workspaces/current-workspace.server.ts'
import { deleteWorkspace } from './workspaces/delete-workspace.server.ts'
import { listWorkspaces } from './workspaces/list-workspaces.server.ts'
import { findAttachableItem, moveToWorkspace } from './workspaces/move-to-workspace.server.ts'
import { renameWorkspace } from './workspaces/rename-workspace.server.ts'
import {
	buildAccounts,
	contextOf,
	outcomeOf,
	PERSONAS,
	type Outcome,
	type Persona,
} from '../../tests/support/team.ts'

type World = Awaited<ReturnType<typeof buildAccounts>>
type Operation = (account: ActingAccount, world: World) => Promise<unknown>

let counter = 0
const fresh = () => `new-${Date.now()}-${counter++}@example.com`
const access = { role: 'editor' as const, accessAllWorkspaces: true, workspaceIds: [], scopes: [] }
const request = () => new Request('http://localhost/')

// persona order: owner, admin, editor, editorRead, editorWrite, noX, stranger
const MATRIX: [string, Operation, Outcome[]][] = [
	['list workspaces', (a) => listWorkspaces(a), ['ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok']],
	[
		'create a workspace',
		(a) => createWorkspace(a, { name: `W ${counter++}` }),
		['ok', 'ok', 403, 403, 403, 'ok', 'ok'],
	],
	[
		'rename X',
		(a, w) => renameWorkspace(a, w.workspaces.X, { name: 'Renamed' }),
		['ok', 'ok', 403, 403, 403, 404, 404],
	],
	[
		'rename Z (account B)',
		(a, w) => renameWorkspace(a, w.workspaces.Z, { name: 'Mine now' }),
		[404, 404, 404, 404, 404, 404, 'ok'],
	],
	[
		'delete X (holds things)',
		(a, w) => deleteWorkspace(a, w.workspaces.X),
		['form', 'form', 403, 403, 403, 404, 404],
	],
	[
		'delete the empty workspace',
		(a, w) => deleteWorkspace(a, w.workspaces.E),
		['ok', 'ok', 403, 403, 403, 404, 404],
	],
	[
		'delete Z (account B)',
		(a, w) => deleteWorkspace(a, w.workspaces.Z),
		[404, 404, 404, 404, 404, 404, 'form'],
	],
	[
		'switch to X',
		(a, w) => chooseWorkspace(request(), a, w.workspaces.X),
		['ok', 'ok', 'ok', 'ok', 'ok', 404, 404],
	],
	[
		'switch to Z (account B)',
		(a, w) => chooseWorkspace(request(), a, w.workspaces.Z),
		[404, 404, 404, 404, 404, 404, 'ok'],
	],
	[
		'view a list in X',
		(a, w) => findAttachableItem(a, 'list', w.inX.list),
		['ok', 'ok', 'ok', 'ok', 'ok', 404, 404],
	],
	[
		'view a domain in X',
		(a, w) => findAttachableItem(a, 'domain', w.inX.domain),
		['ok', 'ok', 403, 'ok', 'ok', 404, 404],
	],
	[
		'move a list X -> Y',
		(a, w) => moveToWorkspace(a, 'list', w.inX.list, w.workspaces.Y),
		['ok', 'ok', 'ok', 'ok', 'ok', 404, 404],
	],
	[
		'move a company list X -> Y',
		(a, w) => moveToWorkspace(a, 'company-list', w.inX.companyList, w.workspaces.Y),
		['ok', 'ok', 'ok', 'ok', 'ok', 404, 404],
	],
	[
		'move a domain X -> Y',
		(a, w) => moveToWorkspace(a, 'domain', w.inX.domain, w.workspaces.Y),
		['ok', 'ok', 403, 403, 'ok', 404, 404],
	],
	[
		'move an inbox order X -> Y',
		(a, w) => moveToWorkspace(a, 'inbox-order', w.inX.inboxOrder, w.workspaces.Y),
		['ok', 'ok', 403, 403, 'ok', 404, 404],
	],
	[
		'move a list of X into Z (account B)',
		(a, w) => moveToWorkspace(a, 'list', w.inX.list, w.workspaces.Z),
		[404, 404, 404, 404, 404, 404, 404],
	],
	[
		'move a list of Z (account B)',
		(a, w) => moveToWorkspace(a, 'list', w.inZ.list, w.workspaces.Z),
		[404, 404, 404, 404, 404, 404, 'ok'],
	],
	['list the team', (a) => listTeam(a), ['ok', 403, 403, 403, 403, 403, 'ok']],
	[
		'invite to all workspaces',
		(a) => inviteMember(a, { email: fresh(), ...access }),
		['ok', 403, 403, 403, 403, 403, 'ok'],
	],
	[
		'invite to X',
		(a, w) =>
			inviteMember(a, {
				email: fresh(),
				...access,
				accessAllWorkspaces: false,
				workspaceIds: [w.workspaces.X],
			}),
		['ok', 403, 403, 403, 403, 404, 404],
	],
	[
		'invite to Z (account B)',
		(a, w) =>
			inviteMember(a, {
				email: fresh(),
				...access,
				accessAllWorkspaces: false,
				workspaceIds: [w.workspaces.Z],
			}),
		[404, 404, 404, 404, 404, 404, 'ok'],
	],
	[
		"resend A's invitation",
		(a, w) => resendInvitation(a, w.invitation.id),
		['ok', 403, 403, 403, 403, 403, 404],
	],
	[
		"revoke A's invitation",
		(a, w) => revokeInvitation(a, w.invitation.id),
		['ok', 403, 403, 403, 403, 403, 404],
	],
	[
		"revoke B's invitation",
		(a, w) => revokeInvitation(a, w.strangerInvitation.id),
		[404, 404, 404, 404, 404, 404, 'ok'],
	],
	[
		"edit A's editor",
		(a, w) => updateMember(a, w.users.editor.memberId, { ...access, role: 'admin' }),
		['ok', 403, 403, 403, 403, 403, 404],
	],
	[
		"remove A's editor",
		(a, w) => removeMember(a, w.users.editor.memberId),
		['ok', 403, 403, 403, 403, 403, 404],
	],
	[
		'remove with a malformed id',
		(a) => removeMember(a, "1' or '1'='1"),
		[404, 404, 404, 404, 404, 404, 404],
	],
]

describe('authorization matrix (services)', () => {
	test.each(MATRIX)('%s', async (_name, operation, expected) => {
		const actual: Record<Persona, Outcome> = {} as Record<Persona, Outcome>
		for (const persona of PERSONAS) {
			// every cell on fresh accounts, so that one cell's writes do not decide another's
			const world = await buildAccounts(db)
			const account = await contextOf(db, world.users[persona])
			actual[persona] = await outcomeOf(() => operation(account, world))
		}
		expect(actual).toEqual(Object.fromEntries(PERSONAS.map((p, i) => [p, expected[i]])))
	})

	test('route guards: scope, and the owner plan carrying members through subscription', async () => {
		const world = await buildAccounts(db)
		const request = new Request('http://localhost/checkout')
		const scope: Record<string, Outcome> = {}
		const subscription: Record<string, Outcome> = {}
		for (const persona of PERSONAS) {
			const account = await contextOf(db, world.users[persona])
			scope[persona] = await outcomeOf(async () => guards.scope({ request, account }))
			subscription[persona] = await outcomeOf(async () => guards.subscription({ request, account }))
		}
		// /checkout, /url-forward and /ordering-inboxes: any of all, domain-management:read or :write
		expect(scope).toEqual({
			owner: 'ok',
			admin: 'ok',
			editor: 403,
			editorRead: 'ok',
			editorWrite: 'ok',
			noX: 'ok',
			stranger: 'ok',
		})
		expect(Object.values(subscription).every((o) => o === 'ok')).toBe(true)
	})
})
