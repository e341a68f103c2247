import { db } from '../../../db/index.server.ts'
import { FormError, isUuid } from '../../utils/http-errors.server.ts'
import type { BulkHandler } from '../bulk/types.ts'
import { findWorkspace } from '../workspaces/find-workspace.server.ts'
import { moveToWorkspace } from '../workspaces/move-to-workspace.server.ts'
import { domainAccount } from './access.server.ts'
import { deleteDomain } from './delete.server.ts'
import { domainFilter, requestDnsCheck, visibleDomains } from './domains.server.ts'
import { setDomainSubscriptionCancel } from './subscriptions.server.ts'

/**
 * Bulk actions on domains (issue 34): each row goes through the same service as the single
 * action on its row, so the same permissions, refusals and audit entries apply.
 */
export const domainBulk: BulkHandler = {
	kind: 'domains',
	authorize: (account) => void domainAccount(account, 'change'),
	async owned(account, ids) {
		const valid = ids.filter(isUuid)
		if (valid.length === 0) return []
		return db
			.selectFrom('domains')
			.select(['id', 'name'])
			.where(visibleDomains(domainAccount(account, 'change')))
			.where('id', 'in', valid)
			.execute()
	},
	async matching(account, filter, afterId, limit) {
		return db
			.selectFrom('domains')
			.select(['id', 'name'])
			.where(visibleDomains(domainAccount(account, 'change')))
			.where(domainFilter(filter.q))
			.$if(afterId !== null, (q) => q.where('id', '>', afterId!))
			.orderBy('id')
			.limit(limit)
			.execute()
	},
	async count(account, filter) {
		const row = await db
			.selectFrom('domains')
			.select((eb) => eb.fn.countAll<string>().as('n'))
			.where(visibleDomains(domainAccount(account, 'change')))
			.where(domainFilter(filter.q))
			.executeTakeFirstOrThrow()
		return Number(row.n)
	},
	actions: {
		'check-dns': {
			label: 'Check DNS',
			async run(account, row) {
				await requestDnsCheck(account, [row.id])
				return 'done'
			},
		},
		cancel: {
			label: 'Cancel subscription',
			async run(account, row) {
				const sub = await db
					.selectFrom('domain_subscriptions')
					.select('id')
					.where('domain_id', '=', row.id)
					.where('status', '=', 'active')
					.where('expire_date', '>', new Date())
					.executeTakeFirst()
				if (!sub) return { skipped: 'it has no active subscription' }
				await setDomainSubscriptionCancel(account, sub.id, true)
				return 'done'
			},
		},
		move: {
			label: 'Move to workspace',
			async params(params, account) {
				if (!isUuid(params.workspaceId)) throw new FormError('Pick a workspace.', 'workspaceId')
				await findWorkspace(domainAccount(account, 'change'), params.workspaceId)
			},
			async run(account, row, params) {
				const acting = domainAccount(account, 'change')
				const { moved, workspace } = await moveToWorkspace(
					acting,
					'domain',
					row.id,
					params.workspaceId,
				)
				return moved ? 'done' : { skipped: `already in ${workspace.name}` }
			},
		},
		delete: {
			label: 'Delete',
			async run(account, row) {
				await deleteDomain(account, row.id)
				return 'done'
			},
		},
	},
}
