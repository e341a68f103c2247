import { z } from 'zod'

// Shared by the forms (conform on the client) and the actions (parseWithZod).

export const EmailBisonSettingsSchema = z.object({
	intent: z.literal('emailbison'),
	url: z
		.string({ error: 'Enter your EmailBison URL' })
		.trim()
		.max(500, 'That URL is too long')
		.refine((value) => {
			try {
				const url = new URL(value)
				return (url.protocol === 'http:' || url.protocol === 'https:') && Boolean(url.hostname)
			} catch {
				return false
			}
		}, 'Enter an http:// or https:// URL, e.g. https://mail.example.com'),
	/** empty keeps the stored key */
	apiKey: z.string().trim().max(500, 'That key is too long').optional(),
})

export const EmailBisonTestSchema = z.object({ intent: z.literal('emailbison-test') })

/** EmailBison's own lead fields, and the custom variable names it accepts. */
export const EB_FIELDS = ['email', 'first_name', 'last_name', 'title', 'company', 'notes'] as const
export type EbField = (typeof EB_FIELDS)[number]

/** The fields EmailBison refuses a lead without (a 422 naming the lead). */
// what EmailBison refuses a lead without: a missing last name it takes (issue 39)
export const REQUIRED_FIELDS = ['email', 'first_name'] as const

export const CUSTOM_VARIABLE_NAME = /^[a-z][a-z0-9_]{0,62}$/

export const ChooseWorkspaceSchema = z.object({
	workspace: z.coerce.number({ error: 'Choose an EmailBison workspace' }).int().positive(),
})

/** The upload form's fields, which the API's `POST /emailbison-uploads` takes too. */
export const StartUploadFields = z.object({
	intent: z.literal('upload'),
	workspace: z.coerce.number().int().positive(),
	campaign: z.string({ error: 'Choose a campaign or create one' }).trim(),
	newCampaign: z.string().trim().max(200, 'Use at most 200 characters').optional(),
	map_email: z.string().optional(),
	map_first_name: z.string().optional(),
	map_last_name: z.string().optional(),
	map_title: z.string().optional(),
	map_company: z.string().optional(),
	map_notes: z.string().optional(),
	/** by verification status (issue 35): checkboxes, absent = kept */
	leaveCatchAll: z.boolean().optional(),
	leaveUnknown: z.boolean().optional(),
	unverified: z
		.enum(['upload', 'leave-out', 'verify-first'], {
			error: 'Choose what happens to the leads not verified',
		})
		.default('upload'),
	/** custom variables: `var_<source>` -> variable name, empty = not sent */
	variables: z
		.array(z.object({ source: z.string().max(200), name: z.string().trim().max(63).optional() }))
		.max(100)
		.optional(),
	/** also send leads an earlier upload sent to this EmailBison workspace */
	includeDuplicates: z.literal('on').optional(),
})

type UploadChoices = Pick<
	z.output<typeof StartUploadFields>,
	'campaign' | 'newCampaign' | 'map_email' | 'variables'
>

/** What the fields must say together: a campaign (or a new one's name), the email column. */
export function checkStartUpload(value: UploadChoices, ctx: z.RefinementCtx) {
	if (value.campaign === 'new' && !value.newCampaign)
		ctx.addIssue({ code: 'custom', path: ['newCampaign'], message: 'Name the new campaign' })
	if (value.campaign !== 'new' && !/^\d+$/.test(value.campaign))
		ctx.addIssue({
			code: 'custom',
			path: ['campaign'],
			message: 'Choose a campaign or create one',
		})
	if (!value.map_email)
		ctx.addIssue({
			code: 'custom',
			path: ['map_email'],
			message: 'Choose the column with emails',
		})
	value.variables?.forEach((v, i) => {
		if (v.name && !CUSTOM_VARIABLE_NAME.test(v.name))
			ctx.addIssue({
				code: 'custom',
				path: ['variables', i, 'name'],
				message: 'Lower-case letters, digits and _ only, starting with a letter',
			})
	})
}

export const StartUploadSchema = StartUploadFields.superRefine(checkStartUpload)
