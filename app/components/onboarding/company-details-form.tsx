import {
	getFormProps,
	getInputProps,
	getSelectProps,
	useForm,
	type SubmissionResult,
} from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { parseWithZod } from '../../utils/form-bounds.ts'
import type { ReactNode } from 'react'
import { Form } from 'react-router'
import { Choice, ChoiceGroup } from '../ui/choice.tsx'
import { SubmitButton } from '../ui/button.tsx'
import { ErrorList, Field, FormErrors, inputClasses } from '../ui/field.tsx'
import { PhoneInput } from '../phone-input/phone-input.tsx'
import { splitPhone } from '../phone-input/phone.ts'
import {
	COMPANY_MAX,
	GOALS,
	HEARD_FROM,
	OnboardingConstraint,
	OnboardingSchema,
	ROLES,
	TEAM_SIZES,
	WEBSITE_MAX,
	type OnboardingAnswers,
} from '../../services/onboarding/schema.ts'

export type CompanyDetailsDefaults = {
	answers: Partial<OnboardingAnswers>
	phone: string | null
}

function SelectField({
	label,
	meta,
	options,
	placeholder,
}: {
	label: string
	meta: Parameters<typeof getSelectProps>[0]
	options: readonly string[]
	placeholder: string
}) {
	const props = getSelectProps(meta)
	const errorId = meta.errors?.length ? `${meta.id}-error` : undefined
	return (
		<div>
			<label htmlFor={meta.id} className="block text-sm font-medium text-slate-800">
				{label}
			</label>
			<select
				{...props}
				aria-describedby={errorId}
				className={`mt-1 ${inputClasses}`}
				defaultValue={(meta.initialValue as string | undefined) ?? ''}
			>
				<option value="" disabled>
					{placeholder}
				</option>
				{options.map((option) => (
					<option key={option} value={option}>
						{option}
					</option>
				))}
			</select>
			<ErrorList id={errorId} errors={meta.errors} />
		</div>
	)
}

/**
 * The company details form of /onboarding and /settings: company, website, role,
 * team size, goals, how they heard of us and the phone (SPEC.md section 5's field).
 */
export function CompanyDetailsForm({
	id,
	intent,
	lastResult,
	defaults,
	submitLabel,
	pending,
	children,
}: {
	id: string
	intent?: string
	lastResult?: SubmissionResult<string[]> | null
	defaults: CompanyDetailsDefaults | null
	submitLabel: string
	pending: boolean
	children?: ReactNode
}) {
	const answers = defaults?.answers ?? {}
	const saved = splitPhone(defaults?.phone)
	const [form, fields] = useForm({
		id,
		lastResult,
		constraint: getZodConstraint(OnboardingConstraint),
		defaultValue: {
			company: answers.company ?? '',
			website: answers.website ?? '',
			role: answers.role ?? '',
			teamSize: answers.teamSize ?? '',
			goals: answers.goals ?? [],
			heardFrom: answers.heardFrom ?? '',
		},
		onValidate: ({ formData }) => parseWithZod(formData, { schema: OnboardingSchema }),
		shouldValidate: 'onBlur',
		shouldRevalidate: 'onInput',
	})
	const chosenGoals = new Set(
		(fields.goals.initialValue as string[] | string | undefined) ?? ([] as string[]),
	)
	return (
		<Form method="post" className="space-y-5" {...getFormProps(form)}>
			{intent ? <input type="hidden" name="intent" value={intent} /> : null}
			<FormErrors id={form.errorId} errors={form.errors} />
			<Field
				label="Company"
				errors={fields.company.errors}
				inputProps={{
					...getInputProps(fields.company, { type: 'text' }),
					maxLength: COMPANY_MAX,
					autoComplete: 'organization',
				}}
			/>
			<Field
				label="Website"
				hint="Optional. example.com is enough."
				errors={fields.website.errors}
				inputProps={{
					...getInputProps(fields.website, { type: 'text' }),
					maxLength: WEBSITE_MAX,
					inputMode: 'url',
					autoComplete: 'url',
					placeholder: 'example.com',
				}}
			/>
			<div className="grid gap-5 sm:grid-cols-2">
				<SelectField
					label="Your role"
					meta={fields.role}
					options={ROLES}
					placeholder="Choose your role"
				/>
				<SelectField
					label="Team size"
					meta={fields.teamSize}
					options={TEAM_SIZES}
					placeholder="Choose a size"
				/>
			</div>
			<ChoiceGroup
				legend="What do you want to do with us?"
				errors={fields.goals.errors}
				errorId={`${fields.goals.id}-error`}
			>
				{GOALS.map((goal, index) => (
					<Choice
						key={goal}
						label={goal}
						inputProps={{
							id: `${fields.goals.id}-${index}`,
							type: 'checkbox',
							name: fields.goals.name,
							value: goal,
							defaultChecked: chosenGoals.has(goal),
						}}
					/>
				))}
			</ChoiceGroup>
			<SelectField
				label="How did you hear about us?"
				meta={fields.heardFrom}
				options={HEARD_FROM}
				placeholder="Choose one (optional)"
			/>
			<PhoneInput
				id={fields.phone.id}
				label="Phone"
				name={fields.phone.name}
				countryName={fields.phoneCountry.name}
				defaultValue={saved?.national ?? (fields.phone.initialValue as string | undefined)}
				defaultCountry={saved?.country ?? (fields.phoneCountry.initialValue as string | undefined)}
				restrictCharacters
				required
				errors={fields.phone.errors}
				countryErrors={fields.phoneCountry.errors}
				hint="We only call about your account."
			/>
			{children}
			<SubmitButton pending={pending} pendingText="Saving…">
				{submitLabel}
			</SubmitButton>
		</Form>
	)
}
