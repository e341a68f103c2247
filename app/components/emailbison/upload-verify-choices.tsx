import type { FieldMetadata } from '@conform-to/react'
import { getInputProps } from '@conform-to/react'
import { Link } from 'react-router'
import { STATUS_INFO, type StatusFilter } from '../../services/verification/statuses.ts'
import { Choice, ChoiceGroup } from '../ui/choice.tsx'

// The upload form's choices by verification status (issue 35 point 6): how many leads of the
// list are in each status, what is always left out, what may be kept, and what happens to the
// leads never verified. Plain checkboxes and radios: it works without JavaScript.

type Counts = Record<StatusFilter, number>

const n = (count: number) => `${count.toLocaleString('en')} lead${count === 1 ? '' : 's'}`

export function UploadVerifyChoices({
	listId,
	counts,
	fields,
}: {
	listId: string
	counts: Counts
	fields: {
		leaveCatchAll: FieldMetadata<boolean | undefined>
		leaveUnknown: FieldMetadata<boolean | undefined>
		unverified: FieldMetadata<string | undefined>
	}
}) {
	const always = counts.invalid + counts.disposable + counts.risky
	return (
		<fieldset className="space-y-3" data-testid="verify-choices">
			<legend className="mb-2 text-sm font-medium text-slate-800">
				Leave out by email status (
				<Link to={`/lists/${listId}/verify`} className="text-indigo-700 underline">
					verify this list
				</Link>
				)
			</legend>
			<p className="text-sm text-slate-700" data-testid="always-left-out">
				Always left out: {n(always)} ({STATUS_INFO.invalid.label} {counts.invalid},{' '}
				{STATUS_INFO.disposable.label} {counts.disposable}, {STATUS_INFO.risky.label} {counts.risky}
				). {STATUS_INFO.valid.label}: {n(counts.valid)}.
			</p>
			<Choice
				label={`Leave out catch-all (${n(counts.catch_all)})`}
				description={STATUS_INFO.catch_all.meaning}
				inputProps={{
					...getInputProps(fields.leaveCatchAll, { type: 'checkbox' }),
					id: fields.leaveCatchAll.id,
				}}
			/>
			<Choice
				label={`Leave out unknown (${n(counts.unknown)})`}
				description={STATUS_INFO.unknown.meaning}
				inputProps={{
					...getInputProps(fields.leaveUnknown, { type: 'checkbox' }),
					id: fields.leaveUnknown.id,
				}}
			/>
			<ChoiceGroup
				legend={`Not verified yet (${n(counts.unverified)})`}
				errors={fields.unverified.errors}
				errorId={fields.unverified.errorId}
			>
				{(
					[
						['upload', 'Upload them'],
						['leave-out', 'Leave them out'],
						[
							'verify-first',
							'Verify first (with your own verification key, else credits for each definitive answer), then upload by their status',
						],
					] as const
				).map(([value, label]) => (
					<Choice
						key={value}
						label={label}
						inputProps={{
							...getInputProps(fields.unverified, { type: 'radio', value }),
							id: `${fields.unverified.id}-${value}`,
						}}
					/>
				))}
			</ChoiceGroup>
		</fieldset>
	)
}

/** "12 left out: invalid 3, catch-all 9" for an upload's report. */
export function leftOutText(leftOut: Record<string, number> | null) {
	if (!leftOut) return null
	// the worst first, whatever order the database kept them in
	const order = ['invalid', 'disposable', 'risky', 'catch_all', 'unknown', 'unverified']
	const parts = Object.entries(leftOut)
		.filter(([, count]) => count > 0)
		.sort(([a], [b]) => order.indexOf(a) - order.indexOf(b))
	if (parts.length === 0) return null
	const total = parts.reduce((sum, [, count]) => sum + count, 0)
	const label = (status: string) =>
		status in STATUS_INFO ? STATUS_INFO[status as StatusFilter].label.toLowerCase() : status
	return `${total.toLocaleString('en')} left out by email status: ${parts
		.map(([status, count]) => `${label(status)} ${count.toLocaleString('en')}`)
		.join(', ')}`
}
