import { z } from 'zod'

export const PROVIDERS = [
	'openai',
	'apify',
	'apollo',
	'emailbison',
	'millionverifier',
	'zerobounce',
	'reacher',
] as const
export type Provider = (typeof PROVIDERS)[number]

export const PROVIDER_LABELS: Record<Provider, string> = {
	openai: 'OpenAI-compatible (OpenAI, Azure, OpenRouter, Ollama)',
	apify: 'Apify',
	apollo: 'Apollo',
	emailbison: 'EmailBison',
	millionverifier: 'MillionVerifier (email verification)',
	zerobounce: 'ZeroBounce (email verification)',
	reacher: 'Reacher (email verification, self-hosted or SaaS)',
}

const provider = z.enum(PROVIDERS, { error: 'Choose a provider.' })

export const SaveKeySchema = z
	.object({
		intent: z.literal('save'),
		provider,
		key: z
			.string({ error: 'Paste the API key.' })
			.trim()
			.min(8, 'That is too short to be an API key.')
			.max(500, 'That is too long to be an API key.')
			.regex(/^\S+$/, 'An API key has no spaces.'),
		baseUrl: z
			.url({ protocol: /^https?$/, error: 'Enter the base URL, e.g. https://api.openai.com/v1' })
			.max(300)
			.optional(),
		label: z.string().trim().max(60, 'At most 60 characters.').optional(),
	})
	.refine((v) => v.provider !== 'openai' || Boolean(v.baseUrl), {
		path: ['baseUrl'],
		message: 'An OpenAI-compatible provider needs its base URL, e.g. https://api.openai.com/v1',
	})

export const KeyActionSchema = z.object({
	intent: z.enum(['test', 'delete']),
	provider,
})
