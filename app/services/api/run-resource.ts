import { z } from 'zod'
import type { AccountContext } from '../../context.server.ts'
import type { ApiFamily } from '../api-tokens/scopes.ts'
import { ApiAnswer, defineOperation, type ApiOperation, type ScreenName } from './operation.ts'

// "A run resource" (decision 0104): work started on a list and followed until it ends —
// enrichment runs, verification runs, EmailBison uploads. Its operations have one shape:
// start (with the page's estimate as a dry run when it has one), get by id, and cancel when
// the page offers it; each answers the run as `find` reads it through the page's service.

export const RunIdParams = z.object({
	id: z.uuid({ error: 'Not an id' }).meta({ description: 'The run.' }),
})

type Described = { summary: string; description?: string }

export function runResource<B extends z.ZodType, R extends z.ZodType>(spec: {
	/** under /api/v1, e.g. '/enrichment-runs' */
	path: string
	/** the operation ids' noun, e.g. 'EnrichmentRun': createEnrichmentRun, getEnrichmentRun */
	noun: string
	tag: string
	family: ApiFamily
	/** the screen that starts it: its plan rule is the API's (handler.server.ts) */
	screen: ScreenName
	item: R
	/** the run as the API answers it; a 404 when this account may not see it */
	find: (account: AccountContext, id: string) => Promise<z.input<R>>
	start: Described & {
		body: B
		/** starts it through the page's service; the new run's id */
		run: (account: AccountContext, body: z.output<B>) => Promise<string>
		/** `dry_run: true` answers this (200) and starts nothing */
		estimate?: {
			schema: z.ZodType
			of: (account: AccountContext, body: z.output<B>) => Promise<unknown>
		}
	}
	get: Described
	cancel?: Described & { run: (account: AccountContext, id: string) => Promise<unknown> }
}): ApiOperation[] {
	const { estimate } = spec.start
	const operations = [
		defineOperation({
			id: `create${spec.noun}`,
			method: 'POST',
			path: spec.path,
			summary: spec.start.summary,
			description: spec.start.description,
			tag: spec.tag,
			scope: `${spec.family}:write`,
			screen: spec.screen,
			body: spec.start.body,
			status: 201,
			response: spec.item,
			...(estimate
				? {
						alsoAnswers: [
							{
								status: 200 as const,
								description: 'A dry run: the estimate.',
								schema: estimate.schema,
							},
						],
					}
				: {}),
			async handle({ account, body }) {
				const value = body as z.output<B>
				if (estimate && (value as { dry_run?: boolean }).dry_run) {
					return new ApiAnswer(200, await estimate.of(account, value))
				}
				return spec.find(account, await spec.start.run(account, value))
			},
		}),
		defineOperation({
			id: `get${spec.noun}`,
			method: 'GET',
			path: `${spec.path}/{id}`,
			summary: spec.get.summary,
			description: spec.get.description,
			tag: spec.tag,
			scope: `${spec.family}:read`,
			params: RunIdParams,
			response: spec.item,
			handle: ({ account, params }) => spec.find(account, params.id),
		}),
	]
	const { cancel } = spec
	if (cancel) {
		operations.push(
			defineOperation({
				id: `cancel${spec.noun}`,
				method: 'POST',
				path: `${spec.path}/{id}/cancel`,
				summary: cancel.summary,
				description: cancel.description,
				tag: spec.tag,
				scope: `${spec.family}:write`,
				screen: spec.screen,
				params: RunIdParams,
				response: spec.item,
				async handle({ account, params }) {
					await cancel.run(account, params.id)
					return spec.find(account, params.id)
				},
			}),
		)
	}
	return operations
}
