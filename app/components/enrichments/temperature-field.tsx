import { getInputProps, type FieldMetadata } from '@conform-to/react'
import { Field } from '../ui/field.tsx'

// An enrichment's temperature is optional: empty is the model's own default, and nothing is
// sent (gpt-5 and o-series models refuse any value but theirs; issue 39 point 6).

/** The form's value for a saved enrichment: empty when it has none. */
export const temperatureValue = (temperature: number | null) =>
	temperature === null ? '' : String(temperature)

/** How a saved enrichment's temperature reads in its summary line. */
export const temperatureText = (temperature: number | null) =>
	temperature === null ? 'model’s default temperature' : `temperature ${temperature}`

export function TemperatureField<Schema, FormSchema extends Record<string, unknown>>({
	field,
}: {
	field: FieldMetadata<Schema, FormSchema, string[]>
}) {
	return (
		<Field
			label="Temperature (optional)"
			hint="Leave empty for the model’s default. gpt-5 and o-series models take no other."
			errors={field.errors}
			inputProps={{
				...getInputProps(field, { type: 'number' }),
				step: '0.1',
				placeholder: 'Model’s default',
			}}
		/>
	)
}
