import { db } from '../../../db/index.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { FormError, isUuid, notFound } from '../../utils/http-errors.server.ts'
import { actingAccount } from '../workspaces/access.server.ts'
import { templatePlaceholders } from './apollo-url.ts'

export type UrlTemplate = {
	id: string
	name: string
	url: string
	global: boolean
	placeholders: string[]
}

/** The account's own Apollo URL templates and the global ones admins keep. */
export async function listUrlTemplates(context: AccountContext | null): Promise<UrlTemplate[]> {
	const account = actingAccount(context)
	const rows = await db
		.selectFrom('apollo_url_templates')
		.select(['id', 'name', 'url', 'user_id'])
		.where((eb) => eb.or([eb('user_id', '=', account.accountId), eb('user_id', 'is', null)]))
		.orderBy('user_id', 'desc')
		.orderBy('name')
		.execute()
	return rows.map((row) => ({
		id: row.id,
		name: row.name,
		url: row.url,
		global: row.user_id === null,
		placeholders: templatePlaceholders(row.url),
	}))
}

export async function findUrlTemplate(context: AccountContext | null, id: string) {
	if (!isUuid(id)) notFound('This template')
	const template = (await listUrlTemplates(context)).find((t) => t.id === id)
	return template ?? notFound('This template')
}

export async function saveUrlTemplate(
	context: AccountContext | null,
	input: { name: string; url: string },
) {
	const account = actingAccount(context)
	if (!input.url.startsWith('https://app.apollo.io/#/')) {
		throw new FormError(
			'A template is an Apollo search address (https://app.apollo.io/#/…)',
			'templateUrl',
		)
	}
	if (templatePlaceholders(input.url).length === 0) {
		throw new FormError(
			'Put at least one {{placeholder}} in the address, e.g. personTitles[]={{title}}',
			'templateUrl',
		)
	}
	return db
		.insertInto('apollo_url_templates')
		.values({ user_id: account.accountId, name: input.name, url: input.url })
		.returning(['id', 'name'])
		.executeTakeFirstOrThrow()
}

export async function deleteUrlTemplate(context: AccountContext | null, id: string) {
	const account = actingAccount(context)
	if (!isUuid(id)) notFound('This template')
	const deleted = await db
		.deleteFrom('apollo_url_templates')
		.where('id', '=', id)
		.where('user_id', '=', account.accountId)
		.returning('name')
		.executeTakeFirst()
	return deleted ?? notFound('This template')
}
