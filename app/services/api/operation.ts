import type { z } from 'zod'
import type { AccountContext, ApiTokenRow } from '../../context.server.ts'
import type { screens } from '../../routes.ts'
import type { ApiScope } from '../api-tokens/scopes.ts'

// One operation of the public API: what the dispatcher (handler.server.ts) checks and the
// OpenAPI document (openapi.ts) describes, from the same zod schemas.

export type ScreenName = (typeof screens)[number]['name']

export type HttpMethod = 'GET' | 'POST' | 'DELETE'

export type ApiOperation = {
	/** the OpenAPI operationId */
	id: string
	method: HttpMethod
	/** under /api/v1, with {name} parameters */
	path: string
	summary: string
	description?: string
	tag: string
	scope: ApiScope
	/**
	 * the screen that does the same: a write needs what that screen's middleware needs of the
	 * account's plan (`subscription`); every write names one (decision 0104)
	 */
	screen?: ScreenName
	params?: z.ZodObject
	query?: z.ZodObject
	/**
	 * the request body: JSON, or multipart/form-data with `bodyFormat: 'multipart'`; `stream`:
	 * a multipart upload the operation reads itself (a file never held in memory), `body` then
	 * only describes it
	 */
	body?: z.ZodType
	bodyFormat?: 'json' | 'multipart' | 'stream'
	/**
	 * the answer: JSON by `response`; `csv`: `handle` returns a CsvAnswer, streamed as it is
	 * read (`response` then only describes it: a string)
	 */
	responseFormat?: 'json' | 'csv'
	response: z.ZodType
	/** the success status (200 unless said) */
	status?: 200 | 201 | 202
	/** other successful answers (a dry run's 200), returned by `handle` as an ApiAnswer */
	alsoAnswers?: { status: 200 | 201 | 202; description: string; schema: z.ZodType }[]
	handle: (input: ApiInput) => Promise<unknown>
}

export type ApiInput = {
	account: AccountContext
	token: ApiTokenRow
	params: Record<string, never>
	query: Record<string, never>
	body: never
	request: Request
}

/** An answer with another status than the operation's own (one of its `alsoAnswers`). */
export class ApiAnswer {
	readonly status: 200 | 201 | 202
	readonly body: unknown
	constructor(status: 200 | 201 | 202, body: unknown) {
		this.status = status
		this.body = body
	}
}

/** A CSV answer: its lines as they are read, and the file name it downloads as. */
export class CsvAnswer {
	readonly lines: AsyncIterable<string>
	readonly filename: string
	constructor(lines: AsyncIterable<string>, filename: string) {
		this.lines = lines
		this.filename = filename
	}
}

/** Typed from its schemas, erased to ApiOperation for the table. */
export function defineOperation<
	P extends z.ZodObject | undefined = undefined,
	Q extends z.ZodObject | undefined = undefined,
	B extends z.ZodType | undefined = undefined,
>(
	operation: Omit<ApiOperation, 'handle' | 'params' | 'query' | 'body'> & {
		params?: P
		query?: Q
		body?: B
		handle: (input: {
			account: AccountContext
			token: ApiTokenRow
			params: P extends z.ZodObject ? z.output<P> : Record<string, never>
			query: Q extends z.ZodObject ? z.output<Q> : Record<string, never>
			body: B extends z.ZodType ? z.output<B> : undefined
			request: Request
		}) => Promise<unknown>
	},
): ApiOperation {
	return operation as unknown as ApiOperation
}
