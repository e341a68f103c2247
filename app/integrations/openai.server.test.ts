import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { startFakeOpenAI, type FakeOpenAI } from '../../tests/fakes/openai/server.ts'
import { createModelClient, ModelError } from './openai.server.ts'

// The model client against the local fake, which answers as OpenAI does (issue 39 point 6).
let ai: FakeOpenAI
beforeAll(async () => {
	ai = await startFakeOpenAI({ models: ['gpt-4o-mini', 'gpt-5-mini', 'o4-mini'] })
})
afterAll(() => ai.close())
beforeEach(() => ai.reset())

describe('model providers as they behave', () => {
	// gpt-5 and o-series refuse any temperature but 1: every run on them stopped at once
	test.each(['gpt-5-mini', 'o4-mini'])(
		'%s answers although a run carries a temperature of 0',
		async (model) => {
			const client = createModelClient({ baseUrl: ai.url, apiKey: ai.apiKey })
			const answer = (prompt: string) =>
				client.complete({ model, prompt, temperature: 0, format: { kind: 'text' } })
			expect(await answer('hello')).toBe(`AI(${model}): hello`)
			// remembered: the next call goes without it at once
			expect(await answer('again')).toBe(`AI(${model}): again`)
			expect(ai.requests.filter((r) => r.endsWith(' 400'))).toHaveLength(1)
		},
	)

	test('a temperature the model takes is sent', async () => {
		const client = createModelClient({ baseUrl: ai.url, apiKey: ai.apiKey })
		await client.complete({
			model: 'gpt-4o-mini',
			prompt: 'x',
			temperature: 0.7,
			format: { kind: 'text' },
		})
		expect(ai.requests).toEqual(['POST /v1/chat/completions 200'])
	})

	// a 429 insufficient_quota was retried as a passing rate limit, five times a row
	test('429 insufficient_quota stops the run: out of quota, not a rate limit', async () => {
		ai.setOutOfQuota(true)
		const client = createModelClient({ baseUrl: ai.url, apiKey: ai.apiKey })
		const error = await client
			.complete({ model: 'gpt-4o-mini', prompt: 'x', temperature: 0, format: { kind: 'text' } })
			.catch((e) => e)
		expect(error).toBeInstanceOf(ModelError)
		expect(error.kind).toBe('quota')
		expect(error.retryable).toBe(false)
		expect(error.fatal).toBe(true)
		expect(error.message).toContain('out of quota')
	})
})
