import type { Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { FormError, isUuid, notFound } from '../../utils/http-errors.server.ts'
import { recordAudit } from '../audit/audit-log.server.ts'
import { templatePlaceholders } from '../leads/apollo-url.ts'
import { assertPlatformAdmin, assertStaff } from './access.server.ts'

/** Global Apollo URL templates (user_id null): every account sees them on /create-leads. */
export async function listGlobalTemplates(
	account: AccountContext | null,
	db: Kysely<DB> = defaultDb,
) {
	assertStaff(account)
	const rows = await db
		.selectFrom('apollo_url_templates')
		.select(['id', 'name', 'url'])
		.where('user_id', 'is', null)
		.orderBy('name')
		.execute()
	return rows.map((row) => ({ ...row, placeholders: templatePlaceholders(row.url) }))
}

function checkTemplate(input: { name: string; url: string }) {
	if (!input.url.startsWith('https://app.apollo.io/#/')) {
		throw new FormError('A template is an Apollo search address (https://app.apollo.io/#/…)', 'url')
	}
	if (templatePlaceholders(input.url).length === 0) {
		throw new FormError(
			'Put at least one {{placeholder}} in the address, e.g. personTitles[]={{title}}',
			'url',
		)
	}
}

async function findGlobal(db: Kysely<DB>, id: string | undefined) {
	if (!isUuid(id)) notFound('This template')
	const row = await db
		.selectFrom('apollo_url_templates')
		.select(['id', 'name', 'url'])
		.where('id', '=', id)
		.where('user_id', 'is', null)
		.forUpdate()
		.executeTakeFirst()
	return row ?? notFound('This template')
}

export async function createGlobalTemplate(
	account: AccountContext | null,
	input: { name: string; url: string },
	db: Kysely<DB> = defaultDb,
) {
	const admin = assertPlatformAdmin(account)
	checkTemplate(input)
	return db.transaction().execute(async (trx) => {
		const row = await trx
			.insertInto('apollo_url_templates')
			.values({ user_id: null, name: input.name, url: input.url })
			.returning(['id', 'name', 'url'])
			.executeTakeFirstOrThrow()
		await recordAudit(trx, {
			actorUserId: admin.user.id,
			action: 'admin.template.create',
			targetType: 'apollo_url_template',
			targetId: row.id,
			before: null,
			after: { name: row.name, url: row.url },
		})
		return row
	})
}

export async function updateGlobalTemplate(
	account: AccountContext | null,
	id: string | undefined,
	input: { name: string; url: string },
	db: Kysely<DB> = defaultDb,
) {
	const admin = assertPlatformAdmin(account)
	checkTemplate(input)
	return db.transaction().execute(async (trx) => {
		const before = await findGlobal(trx, id)
		const row = await trx
			.updateTable('apollo_url_templates')
			.set({ name: input.name, url: input.url, updated_at: new Date() })
			.where('id', '=', before.id)
			.returning(['id', 'name', 'url'])
			.executeTakeFirstOrThrow()
		await recordAudit(trx, {
			actorUserId: admin.user.id,
			action: 'admin.template.update',
			targetType: 'apollo_url_template',
			targetId: row.id,
			before: { name: before.name, url: before.url },
			after: { name: row.name, url: row.url },
		})
		return row
	})
}

export async function deleteGlobalTemplate(
	account: AccountContext | null,
	id: string | undefined,
	db: Kysely<DB> = defaultDb,
) {
	const admin = assertPlatformAdmin(account)
	return db.transaction().execute(async (trx) => {
		const before = await findGlobal(trx, id)
		await trx.deleteFrom('apollo_url_templates').where('id', '=', before.id).execute()
		await recordAudit(trx, {
			actorUserId: admin.user.id,
			action: 'admin.template.delete',
			targetType: 'apollo_url_template',
			targetId: before.id,
			before: { name: before.name, url: before.url },
			after: null,
		})
		return before
	})
}
